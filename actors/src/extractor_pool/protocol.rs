//! What the server and an extraction worker process say to each other over the worker's stdin and
//! stdout: length-prefixed frames (8 bytes, little-endian, then the payload).
//!
//! A request is two frames: the [`Request`], then the document's bytes as they are. A reply is one
//! frame: the [`Reply`]. Both are MessagePack with named fields ([`encode`], [`decode`]): a document's
//! text, often tens of kilobytes, travels as it is, where JSON escaped it on one side and unescaped it on
//! the other (a tenth of a worker's CPU for a 50 KB DOCX). The worker answers requests one at a time,
//! in order.

use serde::{Deserialize, Serialize};

use super::error::ExtractError;
use super::limits::Limits;
use crate::model::Document;

/// The largest frame either side accepts: a little over the largest document (`Limits::max_bytes`
/// tops out well below it) and the largest reply a document of that size can produce.
pub const MAX_FRAME: u64 = 8 << 30;

/// One document to read.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    pub limits: Limits,
}

/// How it went.
#[derive(Debug, Serialize, Deserialize)]
pub struct Reply {
    pub result: Result<Document, ExtractError>,
}

fn invalid(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, error)
}

/// One frame holding a request or a reply in the wire encoding, its length prefix included, so that it
/// leaves in one write (a separate write of the prefix wakes the reader for 8 bytes).
pub fn encode_frame(value: &impl Serialize) -> std::io::Result<Vec<u8>> {
    let mut frame = vec![0u8; 8];
    rmp_serde::encode::write_named(&mut frame, value).map_err(invalid)?;
    let length = (frame.len() - 8) as u64;
    frame[..8].copy_from_slice(&length.to_le_bytes());
    Ok(frame)
}

/// A request's two frames (its header, then the document's bytes) in one buffer.
pub fn request_frames(request: &Request, bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut frames = encode_frame(request)?;
    frames.reserve(8 + bytes.len());
    frames.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    frames.extend_from_slice(bytes);
    Ok(frames)
}

/// A request or a reply from a frame's payload.
pub fn decode<T: serde::de::DeserializeOwned>(payload: &[u8]) -> std::io::Result<T> {
    rmp_serde::from_slice(payload).map_err(invalid)
}

fn too_large(length: u64) -> std::io::Error {
    invalid(format!(
        "a frame of {length} bytes is larger than {MAX_FRAME}"
    ))
}

/// Reads one frame (blocking; the worker's side); None at a clean end of input.
pub fn read_frame(input: &mut impl std::io::Read) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut length = [0u8; 8];
    match input.read_exact(&mut length) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(error) => return Err(error),
    }
    let length = u64::from_le_bytes(length);
    if length > MAX_FRAME {
        return Err(too_large(length));
    }
    let mut payload = Vec::with_capacity(length as usize);
    input.take(length).read_to_end(&mut payload)?;
    if payload.len() as u64 != length {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(Some(payload))
}

/// Reads one frame (the server's side); an end of input is an error here: the worker owed a reply.
pub async fn receive_frame(
    input: &mut (impl tokio::io::AsyncRead + Unpin),
) -> std::io::Result<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut length = [0u8; 8];
    input.read_exact(&mut length).await?;
    let length = u64::from_le_bytes(length);
    if length > MAX_FRAME {
        return Err(too_large(length));
    }
    let mut payload = Vec::with_capacity(length as usize);
    input.take(length).read_to_end(&mut payload).await?;
    if payload.len() as u64 != length {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_carries_the_document_unchanged() {
        let bytes = "Ad Soyad: Ayşe Yılmaz\nIBAN: TR33 0006 1005 1978 6457 8413 26\n".repeat(3);
        let document =
            super::super::engine::extract(bytes.as_bytes(), &Limits::default()).expect("text");
        let reply = Reply {
            result: Ok(document.clone()),
        };
        let wire = encode_frame(&reply).expect("encode");
        let frame = read_frame(&mut wire.as_slice())
            .expect("read")
            .expect("a frame");
        let back: Reply = decode(&frame).expect("decode");
        assert_eq!(back.result, Ok(document));
        let failed = Reply {
            result: Err(ExtractError::LimitExceeded("deep".to_string())),
        };
        let back: Reply = decode(&encode_frame(&failed).expect("encode")[8..]).expect("decode");
        assert_eq!(back.result, failed.result);
    }

    #[test]
    fn an_empty_input_is_a_clean_end_and_a_huge_or_cut_frame_is_refused() {
        assert!(read_frame(&mut [].as_slice()).expect("clean end").is_none());
        let huge = (MAX_FRAME + 1).to_le_bytes();
        assert!(read_frame(&mut huge.as_slice()).is_err());
        let mut cut = 10u64.to_le_bytes().to_vec();
        cut.extend_from_slice(b"12345");
        assert!(read_frame(&mut cut.as_slice()).is_err());
    }

    #[test]
    fn every_part_of_the_model_survives_the_wire() {
        // Fields, attachments, optional parts present and absent, a NaN score: what JSON could not
        // carry (NaN) or what a positional encoding would shift (skipped optional fields).
        let mut inner =
            super::super::engine::extract(b"ek metin", &Limits::default()).expect("text");
        inner.quality.score = f64::NAN;
        let mut document =
            super::super::engine::extract("Başlık\n\nmetin".as_bytes(), &Limits::default())
                .expect("text");
        document.fields.insert(
            "invoice.lines".to_string(),
            serde_json::json!([{"amount": 12.5, "name": "ürün", "count": 3, "tags": null}]),
        );
        document.metadata.title = Some("Başlık".to_string());
        document.tables.push(crate::model::Table {
            name: None,
            header: Some(vec!["a".to_string()]),
            rows: vec![vec!["1".to_string()], vec![]].into(),
            page: Some(2),
        });
        document.attachments.push(crate::model::Attachment {
            filename: "ek.txt".to_string(),
            mime: "text/plain".to_string(),
            bytes: 8,
            document: Some(Box::new(inner)),
            error: None,
        });
        let wire = encode_frame(&Reply {
            result: Ok(document.clone()),
        })
        .expect("encode");
        let back: Reply = decode(&wire[8..]).expect("decode");
        let back = back.result.expect("a document");
        assert!(back.attachments[0]
            .document
            .as_ref()
            .expect("inner")
            .quality
            .score
            .is_nan());
        let mut expected = document;
        let mut got = back;
        expected.attachments.clear();
        got.attachments.clear();
        assert_eq!(got, expected);
    }
}
