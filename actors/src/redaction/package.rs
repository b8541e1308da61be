//! A ZIP package (OOXML) rewritten part by part: a part the writer changes is stored again, deflated;
//! every other part is copied as it was stored (its compressed bytes, its CRC, its time). Reading is
//! bounded as the readers bound it: the decompressed budget of the extraction limits.

use std::io::{Cursor, Read, Write};

use super::{RedactError, Redacted};
use crate::extractor_pool::Limits;

/// What becomes of one part.
pub enum PartFate {
    /// Kept as stored.
    Keep,
    /// Written with these bytes.
    Write(Vec<u8>),
}

fn malformed(error: impl std::fmt::Display) -> RedactError {
    RedactError::Malformed(format!("broken ZIP container: {error}"))
}

/// The package in `bytes` with each part passed to `part(name, bytes)`, which says its fate and adds
/// to the redaction's notes and texts. Parts are read only when `wanted(name)` says so (the others are
/// passed empty).
pub fn rewrite(
    bytes: &[u8],
    limits: &Limits,
    wanted: impl Fn(&str) -> bool,
    mut part: impl FnMut(&str, &[u8], &mut Redacted) -> Result<PartFate, RedactError>,
) -> Result<Redacted, RedactError> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(malformed)?;
    let mut redacted = Redacted::default();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::with_capacity(bytes.len() + 4096)));
    let mut budget = limits.max_decompressed_bytes;
    for index in 0..archive.len() {
        let (name, encrypted, is_dir) = {
            let file = archive.by_index_raw(index).map_err(malformed)?;
            (file.name().to_string(), file.encrypted(), file.is_dir())
        };
        if encrypted {
            return Err(RedactError::Unsupported(format!(
                "the part {name} is encrypted: it cannot be read, so it cannot be masked"
            )));
        }
        let fate = if is_dir {
            PartFate::Keep
        } else if !wanted(&name) {
            part(&name, &[], &mut redacted)?
        } else {
            let mut file = archive.by_index(index).map_err(malformed)?;
            let mut content = Vec::with_capacity(file.size().min(budget).min(1 << 24) as usize);
            (&mut file)
                .take(budget + 1)
                .read_to_end(&mut content)
                .map_err(|e| malformed(format!("{name}: {e}")))?;
            if content.len() as u64 > budget {
                return Err(RedactError::Limit(
                    "decompressed size of the container (zip bomb?)".to_string(),
                ));
            }
            budget -= content.len() as u64;
            drop(file);
            part(&name, &content, &mut redacted)?
        };
        match fate {
            PartFate::Keep => {
                let file = archive.by_index_raw(index).map_err(malformed)?;
                out.raw_copy_file(file).map_err(malformed)?;
            }
            PartFate::Write(content) => {
                let options = zip::write::SimpleFileOptions::default()
                    .compression_method(zip::CompressionMethod::Deflated)
                    .last_modified_time(
                        archive
                            .by_index_raw(index)
                            .map_err(malformed)?
                            .last_modified()
                            .unwrap_or_default(),
                    );
                out.start_file(name.as_str(), options).map_err(malformed)?;
                out.write_all(&content).map_err(malformed)?;
            }
        }
    }
    redacted.bytes = out.finish().map_err(malformed)?.into_inner();
    Ok(redacted)
}
