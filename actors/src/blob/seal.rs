//! The sealed form of a blob: AES-256-GCM in segments of 64 KiB, so that a blob of any size is sealed
//! and opened as it streams, in flat memory. The layout:
//!
//! ```text
//! "DSB1" | nonce prefix (7 random bytes) | segment 0 | segment 1 | ... | last segment
//! segment i = AES-256-GCM(data key, nonce = prefix | i (u32, big-endian) | last (0 or 1),
//!                         aad = "docsieve blob" | tenant id (i64, big-endian), 64 KiB of plain) | tag
//! ```
//!
//! Every segment but the last holds exactly 64 KiB of plain text; the last one (flagged in its nonce)
//! holds the rest, possibly nothing. A blob cut short, reordered or spliced from two blobs fails to
//! open. Bytes that do not start with the magic are a blob written before sealing existed and are
//! read as they are.

use std::sync::Arc;

use ring::aead::{Aad, LessSafeKey, Nonce, Tag, AES_256_GCM};
use ring::rand::{SecureRandom, SystemRandom};

pub const MAGIC: &[u8; 4] = b"DSB1";
const PREFIX: usize = 7;
pub const HEADER: usize = MAGIC.len() + PREFIX;
pub const SEGMENT: usize = 64 * 1024;
const TAG: usize = 16;
/// A sealed row value's nonce: random, AES-GCM's 96 bits.
const NONCE: usize = 12;

/// Why a sealed blob did not open.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error(
        "the blob does not open under its tenant's data key (altered, cut short, or another key)"
    )]
    Corrupt,
    #[error("no random numbers")]
    Random,
}

/// A data key ready for use: it seals the tenant's blobs, and a key derived from it makes the subject
/// index's digests (so that shredding the data key leaves the index meaningless too).
pub struct DataKey {
    key: LessSafeKey,
    tenant_id: i64,
    subjects: ring::hmac::Key,
    /// Seals values kept in database rows (see [`DataKey::seal_value`]): a key of its own, derived
    /// from the data key, so that its random nonces never meet the blobs' counted ones.
    values: LessSafeKey,
    /// Makes the keyed digests rows are compared by (see [`DataKey::digest_value`]).
    digests: ring::hmac::Key,
}

impl DataKey {
    pub fn new(bytes: &[u8; 32], tenant_id: i64) -> DataKey {
        let key = ring::aead::UnboundKey::new(&AES_256_GCM, bytes).expect("a 32-byte key");
        let derive = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, bytes);
        let derived = ring::hmac::sign(&derive, b"docsieve subject index v1");
        let values = ring::hmac::sign(&derive, b"docsieve row values v1");
        let values = ring::aead::UnboundKey::new(&AES_256_GCM, values.as_ref()).expect("32 bytes");
        let digests = ring::hmac::sign(&derive, b"docsieve row digests v1");
        DataKey {
            key: LessSafeKey::new(key),
            tenant_id,
            subjects: ring::hmac::Key::new(ring::hmac::HMAC_SHA256, derived.as_ref()),
            values: LessSafeKey::new(values),
            digests: ring::hmac::Key::new(ring::hmac::HMAC_SHA256, digests.as_ref()),
        }
    }

    /// A keyed digest of a value kept in a row only to be compared (a connector object's key): the
    /// same value gives the same digest for this tenant and `purpose`, and nothing of the value can be
    /// read from it without the key.
    pub fn digest_value(&self, purpose: &str, plain: &[u8]) -> Vec<u8> {
        let mut context = ring::hmac::Context::with_key(&self.digests);
        context.update(&self.tenant_id.to_be_bytes());
        context.update(purpose.as_bytes());
        context.update(&[0]);
        context.update(plain);
        context.sign().as_ref().to_vec()
    }

    fn value_aad(&self, purpose: &str) -> Vec<u8> {
        let mut aad = b"docsieve value".to_vec();
        aad.extend_from_slice(&self.tenant_id.to_be_bytes());
        aad.extend_from_slice(purpose.as_bytes());
        aad
    }

    /// A value kept in a database row, sealed whole: a random 96-bit nonce, then AES-256-GCM's
    /// ciphertext and tag, bound to the tenant and to `purpose` (what the value is), so that a sealed
    /// value copied to another tenant's row or to another column does not open.
    pub fn seal_value(&self, purpose: &str, plain: &[u8]) -> Result<Vec<u8>, SealError> {
        let mut nonce = [0u8; NONCE];
        SystemRandom::new()
            .fill(&mut nonce)
            .map_err(|_| SealError::Random)?;
        let mut out = Vec::with_capacity(NONCE + plain.len() + TAG);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(plain);
        let tag = self
            .values
            .seal_in_place_separate_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(self.value_aad(purpose)),
                &mut out[NONCE..],
            )
            .map_err(|_| SealError::Corrupt)?;
        out.extend_from_slice(tag.as_ref());
        Ok(out)
    }

    /// Opens what [`DataKey::seal_value`] sealed for the same `purpose`.
    pub fn open_value(&self, purpose: &str, sealed: &[u8]) -> Result<Vec<u8>, SealError> {
        if sealed.len() < NONCE + TAG {
            return Err(SealError::Corrupt);
        }
        let (nonce, body) = sealed.split_at(NONCE);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| SealError::Corrupt)?;
        let mut body = body.to_vec();
        let plain = self
            .values
            .open_in_place(nonce, Aad::from(self.value_aad(purpose)), &mut body)
            .map_err(|_| SealError::Corrupt)?
            .len();
        body.truncate(plain);
        Ok(body)
    }

    /// The subject index's digest of a value of type `pii_type` in its normal form: 32 hex digits
    /// of an HMAC-SHA256 under a key derived from the tenant's data key.
    pub fn subject_digest(&self, pii_type: &str, normal: &str) -> String {
        let mut input = Vec::with_capacity(pii_type.len() + normal.len() + 1);
        input.extend_from_slice(pii_type.as_bytes());
        input.push(0);
        input.extend_from_slice(normal.as_bytes());
        hex::encode(&ring::hmac::sign(&self.subjects, &input).as_ref()[..16])
    }

    fn aad(&self) -> [u8; 21] {
        let mut aad = [0u8; 21];
        aad[..13].copy_from_slice(b"docsieve blob");
        aad[13..].copy_from_slice(&self.tenant_id.to_be_bytes());
        aad
    }

    fn nonce(prefix: &[u8; PREFIX], index: u32, last: bool) -> Nonce {
        let mut nonce = [0u8; 12];
        nonce[..PREFIX].copy_from_slice(prefix);
        nonce[PREFIX..11].copy_from_slice(&index.to_be_bytes());
        nonce[11] = u8::from(last);
        Nonce::assume_unique_for_key(nonce)
    }
}

/// Whether `bytes` (a blob's first bytes) are a sealed blob.
pub fn is_sealed(bytes: &[u8]) -> bool {
    bytes.len() >= HEADER && bytes.starts_with(MAGIC)
}

/// The plain size of a sealed blob of `sealed` bytes.
pub fn plain_size(sealed: u64) -> u64 {
    let body = sealed.saturating_sub(HEADER as u64);
    let segments = body.div_ceil((SEGMENT + TAG) as u64).max(1);
    body.saturating_sub(segments * TAG as u64)
}

/// Seals a stream of plain bytes: `push` what comes, write what it returns, then `finish`.
pub struct Sealer {
    key: Arc<DataKey>,
    prefix: [u8; PREFIX],
    index: u32,
    pending: Vec<u8>,
    header: bool,
}

impl Sealer {
    pub fn new(key: Arc<DataKey>) -> Result<Sealer, SealError> {
        let mut prefix = [0u8; PREFIX];
        SystemRandom::new()
            .fill(&mut prefix)
            .map_err(|_| SealError::Random)?;
        Ok(Sealer {
            key,
            prefix,
            index: 0,
            pending: Vec::with_capacity(SEGMENT + 1),
            header: false,
        })
    }

    fn start(&mut self, out: &mut Vec<u8>) {
        if !self.header {
            out.extend_from_slice(MAGIC);
            out.extend_from_slice(&self.prefix);
            self.header = true;
        }
    }

    fn seal_segment(&mut self, plain: &[u8], last: bool, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(plain);
        let nonce = DataKey::nonce(&self.prefix, self.index, last);
        let tag: Tag = self
            .key
            .key
            .seal_in_place_separate_tag(nonce, Aad::from(self.key.aad()), &mut out[start..])
            .expect("a segment within AES-GCM's limits");
        out.extend_from_slice(tag.as_ref());
        self.index += 1;
    }

    /// Takes more plain bytes; returns the sealed bytes ready to write (whole segments only: the last
    /// 64 KiB wait, since only `finish` knows which segment is the last).
    pub fn push(&mut self, mut plain: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        self.start(&mut out);
        while !plain.is_empty() {
            let room = SEGMENT + 1 - self.pending.len();
            let take = room.min(plain.len());
            self.pending.extend_from_slice(&plain[..take]);
            plain = &plain[take..];
            if self.pending.len() > SEGMENT {
                let segment: Vec<u8> = self.pending.drain(..SEGMENT).collect();
                self.seal_segment(&segment, false, &mut out);
            }
        }
        out
    }

    /// Seals what is left as the last segment.
    pub fn finish(mut self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.pending.len() + HEADER + TAG);
        self.start(&mut out);
        let rest = std::mem::take(&mut self.pending);
        self.seal_segment(&rest, true, &mut out);
        out
    }
}

/// Seals a whole blob held in memory.
pub fn seal(key: &Arc<DataKey>, plain: &[u8]) -> Result<Vec<u8>, SealError> {
    let mut sealer = Sealer::new(key.clone())?;
    let mut out = Vec::with_capacity(plain.len() + HEADER + TAG * (plain.len() / SEGMENT + 1));
    // Whole segments straight from the input, without the pending copy.
    let full = if plain.is_empty() {
        0
    } else {
        (plain.len() - 1) / SEGMENT
    };
    sealer.start(&mut out);
    for segment in plain[..full * SEGMENT].chunks(SEGMENT) {
        sealer.seal_segment(segment, false, &mut out);
    }
    sealer.pending.extend_from_slice(&plain[full * SEGMENT..]);
    out.extend_from_slice(&sealer.finish());
    Ok(out)
}

/// Opens a stream of sealed bytes: `push` what comes, use what it returns, then `finish`.
pub struct Opener {
    key: Arc<DataKey>,
    prefix: Option<[u8; PREFIX]>,
    index: u32,
    pending: Vec<u8>,
}

impl Opener {
    pub fn new(key: Arc<DataKey>) -> Opener {
        Opener {
            key,
            prefix: None,
            index: 0,
            pending: Vec::new(),
        }
    }

    fn open_segment(&mut self, sealed: &mut [u8], last: bool) -> Result<usize, SealError> {
        let prefix = self.prefix.ok_or(SealError::Corrupt)?;
        let nonce = DataKey::nonce(&prefix, self.index, last);
        let plain = self
            .key
            .key
            .open_in_place(nonce, Aad::from(self.key.aad()), sealed)
            .map_err(|_| SealError::Corrupt)?;
        self.index += 1;
        Ok(plain.len())
    }

    /// Takes more sealed bytes; returns the plain bytes of the segments known not to be the last.
    pub fn push(&mut self, sealed: &[u8]) -> Result<Vec<u8>, SealError> {
        self.pending.extend_from_slice(sealed);
        if self.prefix.is_none() {
            if self.pending.len() < HEADER {
                return Ok(Vec::new());
            }
            if !self.pending.starts_with(MAGIC) {
                return Err(SealError::Corrupt);
            }
            let mut prefix = [0u8; PREFIX];
            prefix.copy_from_slice(&self.pending[MAGIC.len()..HEADER]);
            self.prefix = Some(prefix);
            self.pending.drain(..HEADER);
        }
        let mut out = Vec::new();
        let mut at = 0;
        while self.pending.len() - at > SEGMENT + TAG {
            let mut segment = self.pending[at..at + SEGMENT + TAG].to_vec();
            let plain = self.open_segment(&mut segment, false)?;
            out.extend_from_slice(&segment[..plain]);
            at += SEGMENT + TAG;
        }
        self.pending.drain(..at);
        Ok(out)
    }

    /// Opens what is left as the last segment.
    pub fn finish(mut self) -> Result<Vec<u8>, SealError> {
        if self.prefix.is_none() || self.pending.len() < TAG {
            return Err(SealError::Corrupt);
        }
        let mut segment = std::mem::take(&mut self.pending);
        let plain = self.open_segment(&mut segment, true)?;
        segment.truncate(plain);
        Ok(segment)
    }
}

/// Opens a whole sealed blob held in memory.
pub fn open(key: &Arc<DataKey>, sealed: &[u8]) -> Result<Vec<u8>, SealError> {
    if !is_sealed(sealed) {
        return Err(SealError::Corrupt);
    }
    let mut prefix = [0u8; PREFIX];
    prefix.copy_from_slice(&sealed[MAGIC.len()..HEADER]);
    let mut opener = Opener::new(key.clone());
    opener.prefix = Some(prefix);
    let body = &sealed[HEADER..];
    let mut out = Vec::with_capacity(body.len());
    let mut at = 0;
    while body.len() - at > SEGMENT + TAG {
        let start = out.len();
        out.extend_from_slice(&body[at..at + SEGMENT + TAG]);
        let plain = opener.open_segment(&mut out[start..], false)?;
        out.truncate(start + plain);
        at += SEGMENT + TAG;
    }
    opener.pending = body[at..].to_vec();
    out.extend_from_slice(&opener.finish()?);
    Ok(out)
}

/// Row values (`store::Sealed`) are sealed with the data key's own row-value key.
impl crate::store::RowKey for DataKey {
    fn seal_value(&self, purpose: &str, plain: &[u8]) -> Result<Vec<u8>, crate::store::SealError> {
        DataKey::seal_value(self, purpose, plain).map_err(|error| match error {
            SealError::Random => crate::store::SealError::Random,
            SealError::Corrupt => crate::store::SealError::Corrupt,
        })
    }

    fn open_value(&self, purpose: &str, sealed: &[u8]) -> Result<Vec<u8>, crate::store::SealError> {
        DataKey::open_value(self, purpose, sealed).map_err(|_| crate::store::SealError::Corrupt)
    }

    fn digest_value(&self, purpose: &str, plain: &[u8]) -> Vec<u8> {
        DataKey::digest_value(self, purpose, plain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(tenant: i64, byte: u8) -> Arc<DataKey> {
        Arc::new(DataKey::new(&[byte; 32], tenant))
    }

    #[test]
    fn blobs_of_every_size_round_trip_whole_and_streamed() {
        let key = key(7, 1);
        for size in [
            0,
            1,
            SEGMENT - 1,
            SEGMENT,
            SEGMENT + 1,
            3 * SEGMENT,
            3 * SEGMENT + 17,
        ] {
            let plain: Vec<u8> = (0..size).map(|i| (i * 31 % 251) as u8).collect();
            let sealed = seal(&key, &plain).expect("seal");
            assert!(is_sealed(&sealed));
            assert_eq!(plain_size(sealed.len() as u64), size as u64, "{size}");
            assert_eq!(open(&key, &sealed).expect("open"), plain, "{size}");
            // Streamed in odd pieces, both ways.
            let mut sealer = Sealer::new(key.clone()).expect("sealer");
            let mut streamed = Vec::new();
            for piece in plain.chunks(10_007) {
                streamed.extend(sealer.push(piece));
            }
            streamed.extend(sealer.finish());
            assert_eq!(streamed.len(), sealed.len());
            let mut opener = Opener::new(key.clone());
            let mut opened = Vec::new();
            for piece in streamed.chunks(9_001) {
                opened.extend(opener.push(piece).expect("push"));
            }
            opened.extend(opener.finish().expect("finish"));
            assert_eq!(opened, plain, "{size}");
        }
    }

    #[test]
    fn altered_cut_or_foreign_blobs_do_not_open() {
        let plain = vec![b'x'; 2 * SEGMENT + 5];
        let sealed = seal(&key(7, 1), &plain).expect("seal");
        assert!(open(&key(7, 2), &sealed).is_err(), "another key");
        assert!(open(&key(8, 1), &sealed).is_err(), "another tenant");
        let mut altered = sealed.clone();
        altered[HEADER + 3] ^= 1;
        assert!(open(&key(7, 1), &altered).is_err(), "altered");
        // Cut after a whole segment: the segment before is not flagged last.
        let cut = &sealed[..HEADER + SEGMENT + TAG];
        assert!(open(&key(7, 1), cut).is_err(), "cut short");
        assert!(open(&key(7, 1), b"plain text").is_err());
        assert!(!sealed.windows(8).any(|w| w == b"xxxxxxxx"));
    }
}
