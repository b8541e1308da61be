//! The privacy room: policies, keys and the re-identification vault against a SQLite store.

use super::*;

#[tokio::test]
async fn a_policy_is_versioned_keyed_and_cached_until_changed_here() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::sqlite_for_tests(dir.path()).await;
    let tenant = store
        .create_account(
            "owner@example.com",
            "hash",
            "token",
            chrono::Utc::now(),
            chrono::Utc::now(),
        )
        .await
        .expect("account")
        .tenant_id;
    let privacy = Privacy::new(
        store.clone(),
        SecretBox::from_server_secret("a server secret of enough length...."),
    );
    let default = privacy.policy(tenant).await.expect("policy");
    assert_eq!(default.version, 0);
    assert!(default.for_document().replacer.is_none());
    assert_eq!(privacy.key_version(tenant).await.expect("key"), None);
    let settings = PrivacySettings {
        default_operator: Operator::Surrogate,
        operators: [(PiiType::PersonName, Operator::Numbered)].into(),
        disabled_types: vec![PiiType::Ipv4, PiiType::Ipv4],
        ..PrivacySettings::default()
    };
    let change = privacy.put(tenant, settings, None).await.expect("put");
    assert_eq!(
        (change.version, change.settings.disabled_types.len()),
        (1, 1)
    );
    let policy = privacy.policy(tenant).await.expect("policy");
    assert_eq!(policy.version, 1);
    let engine = policy.for_document();
    assert!(!engine.enabled.contains(PiiType::Ipv4));
    let masked = crate::pii_masker::mask_text("TC kimlik no 10000000146", &engine).expect("masked");
    assert!(!masked.text.contains("10000000146") && !masked.text.contains("[MASKED"));
    // The key stays the same until rotated; the rotation changes the surrogates.
    let again = crate::pii_masker::mask_text("TC kimlik no 10000000146", &policy.for_document())
        .expect("masked");
    assert_eq!(masked.text, again.text);
    assert_eq!(
        privacy.rotate_key(tenant).await.expect("rotate").0.version,
        2
    );
    let rotated = privacy.policy(tenant).await.expect("policy");
    let after = crate::pii_masker::mask_text("TC kimlik no 10000000146", &rotated.for_document())
        .expect("masked");
    assert_ne!(masked.text, after.text);
    // Another server secret cannot open the key: keyed masking is refused, not done otherwise.
    let other = Privacy::new(
        store,
        SecretBox::from_server_secret("another server secret of enough length"),
    );
    assert!(matches!(other.policy(tenant).await, Err(PrivacyError::Key)));
}

#[tokio::test]
async fn the_vault_keeps_what_the_keyed_operators_wrote_until_turned_off_or_rotated() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::sqlite_for_tests(dir.path()).await;
    let now = chrono::Utc::now();
    let tenant = store
        .create_account("vault@example.com", "hash", "token", now, now)
        .await
        .expect("account")
        .tenant_id;
    let privacy = Privacy::new(
        store,
        SecretBox::from_server_secret("a server secret of enough length...."),
    );
    let asked = |text: &str| vec![text.to_string()];
    // Off by default: nothing is written down, and nothing resolves.
    let off = PrivacySettings {
        default_operator: Operator::Surrogate,
        ..PrivacySettings::default()
    };
    privacy.put(tenant, off.clone(), None).await.expect("put");
    assert!(privacy
        .policy(tenant)
        .await
        .expect("policy")
        .recorded()
        .1
        .is_none());
    assert!(matches!(
        privacy.resolve(tenant, &asked("x")).await,
        Err(PrivacyError::ReidentificationOff)
    ));
    let on = PrivacySettings {
        reidentification: true,
        operators: [(PiiType::Email, Operator::Hash)].into(),
        ..off.clone()
    };
    privacy.put(tenant, on.clone(), None).await.expect("put");
    let mask = |text: &'static str| {
        let privacy = privacy.clone();
        async move {
            let policy = privacy.policy(tenant).await.expect("policy");
            let (engine, journal) = policy.recorded();
            let masked = crate::pii_masker::mask_text(text, &engine).expect("masked");
            let journal = journal.expect("a journal");
            let kept = privacy
                .remember(tenant, &policy, &journal)
                .await
                .expect("kept");
            (masked, kept)
        }
    };
    let (masked, kept) =
        mask("TC kimlik no 10000000146, e-posta ayse@firma.com.tr, yine 10000000146").await;
    assert_eq!(kept, 2, "{}", masked.text);
    let written = masked.written.clone().expect("written");
    let tckn = written[0].clone().expect("a surrogate");
    let token = written[1].clone().expect("a token");
    assert!(token.starts_with("[EMAIL_"), "{token}");
    // The same values in another document: nothing new.
    let (_, again) = mask("10000000146 ayse@firma.com.tr").await;
    assert_eq!(again, 0);
    assert_eq!(privacy.vault_size(tenant).await.expect("size"), 2);
    let answers = privacy
        .resolve(
            tenant,
            &[tckn.clone(), token.to_lowercase(), "38167243950".into()],
        )
        .await
        .expect("resolved");
    assert_eq!(
        answers,
        vec![
            vec![(PiiType::NationalIdTr, "10000000146".to_string())],
            vec![(PiiType::Email, "ayse@firma.com.tr".to_string())],
            vec![],
        ]
    );
    // A rotation deletes the vault (its rows were sealed under the old key).
    let (_, destroyed) = privacy.rotate_key(tenant).await.expect("rotated");
    assert_eq!(destroyed, 2);
    assert!(privacy.resolve(tenant, &asked(&tckn)).await.expect("asked")[0].is_empty());
    // A masking under the old key that ends after the rotation keeps nothing.
    let stale = privacy.policy(tenant).await.expect("policy");
    let (engine, journal) = stale.recorded();
    crate::pii_masker::mask_text("10000000146", &engine).expect("masked");
    privacy.rotate_key(tenant).await.expect("rotated");
    let journal = journal.expect("a journal");
    assert_eq!(
        privacy
            .remember(tenant, &stale, &journal)
            .await
            .expect("kept"),
        0
    );
    assert_eq!(privacy.vault_size(tenant).await.expect("size"), 0);
    // Turning it off deletes the vault.
    mask("10000000146").await;
    assert_eq!(privacy.vault_size(tenant).await.expect("size"), 1);
    let change = privacy.put(tenant, off, None).await.expect("put");
    assert_eq!(change.vault_destroyed, 1);
    assert_eq!(privacy.vault_size(tenant).await.expect("size"), 0);
}
