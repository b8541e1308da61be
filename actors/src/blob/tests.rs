//! The blob store's own tests: the local store, listings, batch reads, and sealing.
use super::*;

#[tokio::test]
async fn local_store_round_trips_and_deletes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let blobs = Blobs::open("", dir.path()).expect("open");
    let key = Keys::document_original(7, 42);
    blobs
        .put(&key, Bytes::from_static(b"hello"))
        .await
        .expect("put");
    assert_eq!(
        blobs.get(&key).await.expect("get"),
        Bytes::from_static(b"hello")
    );
    assert!(dir
        .path()
        .join("blobs/tenants/7/documents/42/original")
        .exists());
    blobs.delete(&key).await.expect("delete");
    blobs.delete(&key).await.expect("deleting twice is fine");
    assert!(matches!(blobs.get(&key).await, Err(BlobError::NotFound(_))));
    assert!(blobs.ping().await.is_ok());
}

#[tokio::test]
async fn objects_written_before_a_time_are_listed_under_their_prefix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let blobs = Blobs::open("", dir.path()).expect("open");
    let old = Keys::upload(7, "u_old");
    blobs
        .put(&old, Bytes::from_static(b"old"))
        .await
        .expect("put");
    // A file written by another process (a killed one) is listed too.
    std::fs::write(dir.path().join("blobs/tenants/7/uploads/u_planted"), b"x").expect("plant");
    // The staging file of a write cut off by a kill, which the store's listing skips.
    std::fs::write(dir.path().join("blobs/tenants/7/uploads/u_cut#1"), b"xy").expect("plant");
    let cut = chrono::Utc::now() + chrono::Duration::seconds(1);
    blobs
        .put(&Keys::document_original(7, 1), Bytes::from_static(b"other"))
        .await
        .expect("put");
    let mut listed = blobs
        .written_before("tenants/7/uploads", cut)
        .await
        .expect("list");
    listed.sort();
    assert_eq!(
        listed,
        vec![
            ("tenants/7/uploads/u_cut#1".to_string(), 2),
            (old, 3),
            ("tenants/7/uploads/u_planted".to_string(), 1)
        ]
    );
    blobs
        .delete_written("tenants/7/uploads/u_cut#1")
        .await
        .expect("delete");
    assert!(!dir.path().join("blobs/tenants/7/uploads/u_cut#1").exists());
    let past = chrono::Utc::now() - chrono::Duration::hours(1);
    assert!(blobs
        .written_before("tenants/7/uploads", past)
        .await
        .expect("list")
        .is_empty());
}

#[tokio::test]
async fn batch_reads_keep_the_order_and_report_missing_objects() {
    let dir = tempfile::tempdir().expect("tempdir");
    let blobs = Blobs::open("", dir.path()).expect("open");
    for (key, body) in [("a/1.json", "one"), ("a/2.json", "two"), ("b c/3", "three")] {
        blobs
            .put(key, Bytes::from(body.to_string()))
            .await
            .expect("put");
    }
    let keys = |list: &[&str]| list.iter().map(|k| k.to_string()).collect::<Vec<_>>();
    let read = blobs
        .get_many(keys(&["a/2.json", "a/missing", "a/1.json"]))
        .await;
    assert_eq!(read[0].as_ref().expect("two"), &Bytes::from_static(b"two"));
    assert!(matches!(read[1], Err(BlobError::NotFound(_))));
    assert_eq!(read[2].as_ref().expect("one"), &Bytes::from_static(b"one"));
    // A key the fast path cannot map goes through the object store, with the same answers.
    let read = blobs.get_many(keys(&["b c/3", "a/1.json"])).await;
    assert_eq!(
        read[0].as_ref().expect("three"),
        &Bytes::from_static(b"three")
    );
    assert_eq!(read[1].as_ref().expect("one"), &Bytes::from_static(b"one"));
    let size = blobs.copy("a/1.json", "c/copy.json").await.expect("copy");
    assert_eq!(size, 3);
    blobs.delete("a/1.json").await.expect("delete the original");
    assert_eq!(
        blobs.get("c/copy.json").await.expect("copy stays"),
        Bytes::from_static(b"one")
    );
    assert!(matches!(
        blobs.copy("a/1.json", "c/x").await,
        Err(BlobError::NotFound(_))
    ));
    assert!(
        !plain_key("a/../b") && !plain_key("") && !plain_key("a//b") && plain_key("t/1/r.json")
    );
}

#[test]
fn rejects_a_malformed_url() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert!(matches!(
        Blobs::open("not a url", dir.path()),
        Err(BlobError::InvalidUrl(_))
    ));
}

#[tokio::test]
async fn a_sealed_store_keeps_nothing_in_clear_and_a_shredded_tenant_cannot_read() {
    use futures_util::StreamExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let store = crate::store::Store::sqlite_for_tests(dir.path()).await;
    let masters = MasterKeys::parse(&"ab".repeat(32), MasterSource::Env).expect("key");
    let ring = Arc::new(KeyRing::new(store.clone(), masters.clone()));
    let blobs = Blobs::open("", dir.path()).expect("open").sealed(ring);
    let plain = "Ahmet Yılmaz, TCKN 10000000146\n".repeat(9_000);
    let key = Keys::document_original(3, 1);
    blobs
        .put(&key, Bytes::from(plain.clone()))
        .await
        .expect("put");
    let on_disk = std::fs::read(dir.path().join("blobs").join(&key)).expect("file");
    assert!(is_sealed(&on_disk));
    assert!(!String::from_utf8_lossy(&on_disk).contains("10000000146"));
    assert_eq!(blobs.get(&key).await.expect("get"), plain.as_bytes());
    assert!(
        blobs.local_file(&key).is_none(),
        "no clear path to a sealed file"
    );
    let mut streamed = Vec::new();
    let mut stream = blobs.stream(&key).await.expect("stream");
    while let Some(chunk) = stream.next().await {
        streamed.extend_from_slice(&chunk.expect("chunk"));
    }
    assert_eq!(streamed, plain.as_bytes());
    // Uploaded from a file, copied, read in a batch: the same plain bytes.
    let file = dir.path().join("plain.txt");
    std::fs::write(&file, &plain).expect("write");
    let rows = Keys::dataset_export(3, "d1", "jsonl");
    assert_eq!(
        blobs.upload_from(&rows, &file).await.expect("upload"),
        plain.len() as u64
    );
    let copy = Keys::dataset_export(3, "d1", "copy");
    assert_eq!(
        blobs.copy(&rows, &copy).await.expect("copy"),
        plain.len() as u64
    );
    let read = blobs.get_many(vec![copy.clone(), key.clone()]).await;
    assert!(read
        .iter()
        .all(|r| r.as_ref().expect("read") == plain.as_bytes()));
    // A file written before sealing existed is read as it is.
    std::fs::write(
        dir.path().join("blobs/tenants/3/legacy"),
        b"old clear bytes",
    )
    .expect("write");
    assert_eq!(
        blobs.get("tenants/3/legacy").await.expect("legacy"),
        Bytes::from_static(b"old clear bytes")
    );
    // Another tenant's key does not open tenant 3's file moved under its folder.
    std::fs::create_dir_all(dir.path().join("blobs/tenants/4")).expect("folder");
    std::fs::copy(
        dir.path().join("blobs").join(&key),
        dir.path().join("blobs/tenants/4/stolen"),
    )
    .expect("copy");
    assert!(blobs.get("tenants/4/stolen").await.is_err());
    // A rotated master key opens everything (the ring re-reads nothing here: a fresh ring).
    let rotated = MasterKeys::parse(&"cd".repeat(32), MasterSource::Env).expect("key");
    let rotation = rewrap_all(&store, &masters, &rotated)
        .await
        .expect("rotate");
    assert_eq!(rotation.rewrapped, 2);
    let after = Blobs::open("", dir.path())
        .expect("open")
        .sealed(Arc::new(KeyRing::new(store.clone(), rotated)));
    assert_eq!(after.get(&key).await.expect("get"), plain.as_bytes());
    let stale = Blobs::open("", dir.path())
        .expect("open")
        .sealed(Arc::new(KeyRing::new(store.clone(), masters)));
    assert!(matches!(
        stale.get(&key).await,
        Err(BlobError::Key(KeyError::UnknownMaster { .. }))
    ));
    // Shredded: the bytes are still there, and open no more.
    after
        .key_ring()
        .expect("ring")
        .shred(3)
        .await
        .expect("shred");
    assert!(dir.path().join("blobs").join(&key).exists());
    assert!(matches!(
        after.get(&key).await,
        Err(BlobError::Key(KeyError::Shredded(3)))
    ));
    assert!(matches!(
        after.put(&key, Bytes::from_static(b"new")).await,
        Err(BlobError::Key(KeyError::Shredded(3)))
    ));
}

/// Values kept in database rows (`store::Sealed`) are sealed under the same data key.
#[test]
fn a_sealed_value_opens_only_for_its_tenant_and_column_and_shows_nothing() {
    use crate::store::{Sealed, SealedField};
    let key = DataKey::new(&[7u8; 32], 1);
    let other_tenant = DataKey::new(&[7u8; 32], 2);
    let other_key = DataKey::new(&[8u8; 32], 1);
    let plain =
        r#"{"filename":"Zeynep_Karaosmanoglu.eml","fields":{"email.subject":"10000000146"}}"#;
    let sealed = Sealed::seal(Some(&key), SealedField::ExecutionMeta, plain).expect("seal");
    assert!(Sealed::is_sealed(sealed.stored()));
    assert!(!sealed.stored().contains("Zeynep"));
    assert!(!sealed.stored().contains("10000000146"));
    let again = Sealed::seal(Some(&key), SealedField::ExecutionMeta, plain).expect("seal");
    assert_ne!(sealed, again, "a fresh nonce every time");
    assert_eq!(
        sealed
            .open(Some(&key), SealedField::ExecutionMeta)
            .expect("open"),
        plain
    );
    for wrong in [&other_tenant, &other_key] {
        assert!(sealed
            .open(Some(wrong), SealedField::ExecutionMeta)
            .is_err());
    }
    assert!(sealed
        .open(None::<&DataKey>, SealedField::ExecutionMeta)
        .is_err());
    let mut altered = sealed.stored().to_string();
    let last = altered.pop().expect("text");
    altered.push(if last == 'A' { 'B' } else { 'A' });
    assert!(Sealed::from_stored(altered)
        .open(Some(&key), SealedField::ExecutionMeta)
        .is_err());
    // Written by a store without a key ring: read as it is.
    let clear = Sealed::seal(None::<&DataKey>, SealedField::ExecutionMeta, "x").expect("clear");
    assert_eq!(
        clear
            .open(Some(&key), SealedField::ExecutionMeta)
            .expect("open"),
        "x"
    );
}
