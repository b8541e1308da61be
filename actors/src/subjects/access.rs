//! The ZIP of an access request: the files given, then `manifest.json` with each file's SHA-256 and
//! size, so that the person (or their counsel) can check nothing was altered.

use std::io::Write;

use serde_json::{json, Value};

/// A file of the access ZIP.
pub struct AccessFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// The ZIP: `files`, then `manifest.json` (`head` with `files: [{path, sha256, bytes}]`).
pub fn access_zip(head: Value, files: Vec<AccessFile>) -> Result<Vec<u8>, String> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let mut manifest = Vec::new();
    for file in files {
        zip.start_file(file.path.as_str(), options)
            .map_err(|e| format!("writing {}: {e}", file.path))?;
        zip.write_all(&file.bytes)
            .map_err(|e| format!("writing {}: {e}", file.path))?;
        let digest = ring::digest::digest(&ring::digest::SHA256, &file.bytes);
        manifest.push(json!({
            "path": file.path,
            "sha256": hex::encode(digest.as_ref()),
            "bytes": file.bytes.len(),
        }));
    }
    let mut head = head;
    head["files"] = Value::Array(manifest);
    zip.start_file("manifest.json", options)
        .map_err(|e| format!("writing the manifest: {e}"))?;
    zip.write_all(&serde_json::to_vec_pretty(&head).map_err(|e| e.to_string())?)
        .map_err(|e| format!("writing the manifest: {e}"))?;
    Ok(zip
        .finish()
        .map_err(|e| format!("finishing the ZIP: {e}"))?
        .into_inner())
}
