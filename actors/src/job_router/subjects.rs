//! The subject index of a job: each value it found, in its normal form, hashed under a key derived
//! from the tenant's data key (the value itself is never kept), with how often it occurs and where
//! first. Written with the job's execution, in the same transaction.

use std::collections::BTreeMap;

use crate::blob::Blobs;
use crate::pii_masker::MaskedDocument;
use crate::store::SubjectEntry;

/// The index entries of `result` (none when blobs are not sealed: there is no key to hash under).
pub(super) async fn entries(
    blobs: &Blobs,
    tenant_id: i64,
    result: &MaskedDocument,
) -> Result<Vec<SubjectEntry>, crate::blob::KeyError> {
    let Some(ring) = blobs.key_ring() else {
        return Ok(Vec::new());
    };
    if result.findings.is_empty() {
        return Ok(Vec::new());
    }
    let key = ring.data_key(tenant_id).await?;
    let mut by_value: BTreeMap<(&str, &str), (i64, i64)> = BTreeMap::new();
    for (finding, normal) in result.findings.iter().zip(&result.normal_forms) {
        if normal.is_empty() {
            continue;
        }
        let seen = by_value
            .entry((finding.pii_type.name(), normal.as_str()))
            .or_insert((0, finding.char_start as i64));
        seen.0 += 1;
        seen.1 = seen.1.min(finding.char_start as i64);
    }
    Ok(by_value
        .into_iter()
        .map(
            |((pii_type, normal), (occurrences, first_position))| SubjectEntry {
                digest: key.subject_digest(pii_type, normal),
                pii_type: pii_type.to_string(),
                occurrences,
                first_position,
            },
        )
        .collect())
}
