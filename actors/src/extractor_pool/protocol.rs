//! What the server and an extraction worker process say to each other over the worker's stdin and
//! stdout: length-prefixed frames (8 bytes, little-endian, then the payload).
//!
//! A request is two frames: the JSON [`Request`], then the document's bytes as they are. A reply is one
//! frame: the JSON [`Reply`]. The worker answers requests one at a time, in order.

use serde::{Deserialize, Serialize};

use super::error::ExtractError;
use super::limits::Limits;
use super::model::Document;

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

fn too_large(length: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("a frame of {length} bytes is larger than {MAX_FRAME}"),
    )
}

/// Writes one frame (blocking; the worker's side).
pub fn write_frame(out: &mut impl std::io::Write, payload: &[u8]) -> std::io::Result<()> {
    out.write_all(&(payload.len() as u64).to_le_bytes())?;
    out.write_all(payload)
}

/// Reads one frame (blocking; the worker's side); None at a clean end of input.
pub fn read_frame(input: &mut impl std::io::Read) -> std::io::Result<Option<Vec<u8>>> {
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
    let mut payload = vec![0u8; length as usize];
    input.read_exact(&mut payload)?;
    Ok(Some(payload))
}

/// Writes one frame (the server's side).
pub async fn send_frame(
    out: &mut (impl tokio::io::AsyncWrite + Unpin),
    payload: &[u8],
) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    out.write_all(&(payload.len() as u64).to_le_bytes()).await?;
    out.write_all(payload).await?;
    out.flush().await
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
    let mut payload = vec![0u8; length as usize];
    input.read_exact(&mut payload).await?;
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
        let mut wire = Vec::new();
        write_frame(&mut wire, &serde_json::to_vec(&reply).expect("json")).expect("write");
        let frame = read_frame(&mut wire.as_slice())
            .expect("read")
            .expect("a frame");
        let back: Reply = serde_json::from_slice(&frame).expect("parse");
        assert_eq!(back.result, Ok(document));
        let failed = Reply {
            result: Err(ExtractError::LimitExceeded("deep".to_string())),
        };
        let back: Reply =
            serde_json::from_slice(&serde_json::to_vec(&failed).expect("json")).expect("parse");
        assert_eq!(back.result, failed.result);
    }

    #[test]
    fn an_empty_input_is_a_clean_end_and_a_huge_length_is_refused() {
        assert!(read_frame(&mut [].as_slice()).expect("clean end").is_none());
        let huge = (MAX_FRAME + 1).to_le_bytes();
        assert!(read_frame(&mut huge.as_slice()).is_err());
    }
}
