//! A tenant's privacy policy: which types are masked, from what confidence, and per type the masking
//! operator (`placeholder`, `numbered`, `surrogate`, `hash`, `redact`), versioned in the store; and the
//! tenant's pseudonym key, which the keyed operators derive from (32 random bytes, sealed like the
//! other secrets, made at the tenant's first need of it, never shown, replaced on rotation).
//!
//! [`Privacy`] is the one door every masking path goes through (preview, jobs, the CSV export, the
//! fine-tune training file): it reads a tenant's policy, with a short cache, and turns it into the
//! engine's [`Policy`], a fresh one per document (numbers restart with each document).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::pii_masker::{Operator, Operators, PiiType, Policy, SurrogateKey, TypeSet};
use crate::secrets::SecretBox;
use crate::store::{Store, StoreError};

/// How long a process keeps a tenant's policy before reading it again: a change made through another
/// process applies to documents masked from this long after it on.
pub const POLICY_CACHE: Duration = Duration::from_secs(2);

/// A tenant's masking policy, as set with `PUT /v1/settings/privacy`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PrivacySettings {
    /// Types neither detected nor masked: their values stay as written. Default: none (all 46 masked).
    #[serde(default)]
    pub disabled_types: Vec<PiiType>,
    /// Findings below this confidence (0 to 1) are left as written. Default 0: every finding.
    #[serde(default)]
    pub min_confidence: f32,
    /// The operator of every type not named in `operators`. Default `placeholder`.
    #[serde(default)]
    pub default_operator: Operator,
    /// The operator per type name (`{"person_name": "numbered", "national_id_tr": "surrogate"}`).
    #[serde(default)]
    #[schema(value_type = BTreeMap<String, Operator>)]
    pub operators: BTreeMap<PiiType, Operator>,
}

/// What is wrong with a policy, named for the client.
#[derive(Debug, thiserror::Error)]
#[error("{field}: {message}")]
pub struct InvalidPolicy {
    pub field: &'static str,
    pub message: String,
}

impl PrivacySettings {
    /// Checks what serde cannot: the confidence's range.
    pub fn validate(&self) -> Result<(), InvalidPolicy> {
        if !(0.0..=1.0).contains(&self.min_confidence) || self.min_confidence.is_nan() {
            return Err(InvalidPolicy {
                field: "min_confidence",
                message: format!("must be between 0 and 1, not {}", self.min_confidence),
            });
        }
        Ok(())
    }

    pub fn operator(&self, ty: PiiType) -> Operator {
        self.operators
            .get(&ty)
            .copied()
            .unwrap_or(self.default_operator)
    }

    /// Whether some type's operator derives from the tenant's key.
    pub fn keyed(&self) -> bool {
        PiiType::ALL.iter().any(|&ty| self.operator(ty).keyed())
    }

    /// The same policy written the one way (types sorted, no duplicates, no operator that is the
    /// default anyway), as stored.
    pub fn normalized(mut self) -> PrivacySettings {
        self.disabled_types.sort();
        self.disabled_types.dedup();
        let default = self.default_operator;
        self.operators.retain(|_, op| *op != default);
        self
    }
}

/// A tenant's policy in force: its version (0 for the default policy of a tenant that never set one).
#[derive(Clone, Debug)]
pub struct TenantPolicy {
    pub version: i64,
    pub settings: PrivacySettings,
    key: Option<SurrogateKey>,
}

impl TenantPolicy {
    /// The policy of a tenant that never set one: every type, every finding, placeholders.
    pub fn default_policy() -> TenantPolicy {
        TenantPolicy {
            version: 0,
            settings: PrivacySettings::default(),
            key: None,
        }
    }

    /// The engine's policy for one document.
    pub fn for_document(&self) -> Policy {
        let settings = &self.settings;
        let enabled = PiiType::ALL
            .iter()
            .filter(|ty| !settings.disabled_types.contains(ty))
            .fold(TypeSet::default(), |set, &ty| set.with(ty));
        let operators = Operators::new(|ty| settings.operator(ty), self.key.clone());
        let replacer = (!operators.all_placeholders())
            .then(|| Arc::new(operators) as Arc<dyn crate::pii_masker::Replacer>);
        let mut policy = Policy::default();
        policy.enabled = enabled;
        policy.min_confidence = settings.min_confidence;
        policy.replacer = replacer;
        policy
    }
}

/// Per version of the tenant's policy, the types it masks with checksum-valid surrogates (values a
/// scan of its output finds by design): for the fine-tune file's leak scan. A version whose body does
/// not read is left out (its rows are scanned for every type: refused rather than let through).
pub async fn surrogate_types_by_version(
    store: &Store,
    tenant_id: i64,
) -> Result<BTreeMap<i64, TypeSet>, StoreError> {
    Ok(store
        .privacy_policies(tenant_id)
        .await?
        .into_iter()
        .filter_map(|record| {
            let settings: PrivacySettings = serde_json::from_str(&record.body).ok()?;
            let written = PiiType::ALL
                .iter()
                .filter(|&&ty| {
                    !settings.disabled_types.contains(&ty)
                        && settings.operator(ty) == Operator::Surrogate
                        && crate::pii_masker::has_surrogate(ty)
                })
                .fold(TypeSet::default(), |set, &ty| set.with(ty));
            Some((record.version, written))
        })
        .collect())
}

/// Why a tenant's policy could not be had.
#[derive(Debug, thiserror::Error)]
pub enum PrivacyError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stored key does not open under the server's secret (the secret changed): keyed masking
    /// cannot be done, and is refused rather than done with another key.
    #[error("the tenant's pseudonym key cannot be opened with this server's secret")]
    Key,
    /// A stored policy that does not read (written by a newer version?).
    #[error("the stored privacy policy cannot be read: {0}")]
    Stored(String),
}

impl PrivacyError {
    /// Whether trying again may succeed (the database did not answer).
    pub fn passing(&self) -> bool {
        matches!(self, PrivacyError::Store(_))
    }

    /// The code a job's record or an API answer carries.
    pub fn code(&self) -> &'static str {
        match self {
            PrivacyError::Store(_) => crate::error_code::RecordCode::DatabaseError.as_str(),
            _ => crate::error_code::ErrorCode::PseudonymKeyUnavailable.as_str(),
        }
    }
}

/// Tenants' policies as read, with when.
type PolicyCache = HashMap<i64, (Instant, Arc<TenantPolicy>)>;

/// Reads tenants' policies and keys; cheap to clone.
#[derive(Clone)]
pub struct Privacy {
    store: Store,
    secrets: SecretBox,
    cache: Arc<Mutex<PolicyCache>>,
}

impl Privacy {
    pub fn new(store: Store, secrets: SecretBox) -> Privacy {
        Privacy {
            store,
            secrets,
            cache: Arc::default(),
        }
    }

    /// The tenant's policy in force, read at most [`POLICY_CACHE`] ago.
    pub async fn policy(&self, tenant_id: i64) -> Result<Arc<TenantPolicy>, PrivacyError> {
        if let Some((at, policy)) = self.cached(tenant_id) {
            if at.elapsed() < POLICY_CACHE {
                return Ok(policy);
            }
        }
        let policy = Arc::new(self.read(tenant_id).await?);
        self.lock()
            .insert(tenant_id, (Instant::now(), policy.clone()));
        Ok(policy)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PolicyCache> {
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn cached(&self, tenant_id: i64) -> Option<(Instant, Arc<TenantPolicy>)> {
        self.lock().get(&tenant_id).cloned()
    }

    /// Forgets the cached policy of a tenant (after a change made here).
    pub fn forget(&self, tenant_id: i64) {
        self.lock().remove(&tenant_id);
    }

    async fn read(&self, tenant_id: i64) -> Result<TenantPolicy, PrivacyError> {
        let Some(record) = self.store.privacy_policy(tenant_id).await? else {
            return Ok(TenantPolicy::default_policy());
        };
        let settings: PrivacySettings = serde_json::from_str(&record.body)
            .map_err(|error| PrivacyError::Stored(error.to_string()))?;
        let key = if settings.keyed() {
            Some(self.key(tenant_id).await?)
        } else {
            None
        };
        Ok(TenantPolicy {
            version: record.version,
            settings,
            key,
        })
    }

    /// The tenant's key, made on its first need.
    async fn key(&self, tenant_id: i64) -> Result<SurrogateKey, PrivacyError> {
        let record = match self.store.pseudonym_key(tenant_id).await? {
            Some(record) => record,
            None => {
                let sealed = self.new_sealed_key()?;
                let now = chrono::Utc::now();
                self.store
                    .insert_pseudonym_key(tenant_id, &sealed, now)
                    .await?;
                self.store
                    .pseudonym_key(tenant_id)
                    .await?
                    .ok_or(PrivacyError::Key)?
            }
        };
        let secret = self.secrets.open(&record.sealed).ok_or(PrivacyError::Key)?;
        let bytes = hex::decode(secret).map_err(|_| PrivacyError::Key)?;
        Ok(SurrogateKey::new(&bytes))
    }

    fn new_sealed_key(&self) -> Result<String, PrivacyError> {
        use ring::rand::SecureRandom;
        let mut bytes = [0u8; 32];
        ring::rand::SystemRandom::new()
            .fill(&mut bytes)
            .map_err(|_| PrivacyError::Key)?;
        self.secrets
            .seal(&hex::encode(bytes))
            .ok_or(PrivacyError::Key)
    }

    /// Makes the tenant's key if it has none yet (at the tenant's creation).
    pub async fn ensure_key(&self, tenant_id: i64) -> Result<(), PrivacyError> {
        self.key(tenant_id).await.map(|_| ())
    }

    /// The version of the tenant's key and when it was made; None before it has one.
    pub async fn key_version(
        &self,
        tenant_id: i64,
    ) -> Result<Option<(i64, chrono::DateTime<chrono::Utc>)>, PrivacyError> {
        Ok(self
            .store
            .pseudonym_key(tenant_id)
            .await?
            .map(|record| (record.version, record.created_at)))
    }

    /// Keeps `settings` as the tenant's next policy version, by `user_id`; returns the version.
    pub async fn put(
        &self,
        tenant_id: i64,
        settings: PrivacySettings,
        user_id: Option<i64>,
    ) -> Result<(i64, PrivacySettings), PrivacyError> {
        let settings = settings.normalized();
        if settings.keyed() {
            self.ensure_key(tenant_id).await?;
        }
        let body = serde_json::to_string(&settings)
            .map_err(|error| PrivacyError::Stored(error.to_string()))?;
        let version = self
            .store
            .put_privacy_policy(tenant_id, &body, user_id, chrono::Utc::now())
            .await?;
        self.forget(tenant_id);
        Ok((version, settings))
    }

    /// A new key for the tenant: every keyed pseudonym from now on differs from those before.
    pub async fn rotate_key(&self, tenant_id: i64) -> Result<i64, PrivacyError> {
        let sealed = self.new_sealed_key()?;
        let version = self
            .store
            .rotate_pseudonym_key(tenant_id, &sealed, chrono::Utc::now())
            .await?;
        self.forget(tenant_id);
        Ok(version)
    }
}

#[cfg(test)]
mod tests {
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
        let (version, stored) = privacy.put(tenant, settings, None).await.expect("put");
        assert_eq!((version, stored.disabled_types.len()), (1, 1));
        let policy = privacy.policy(tenant).await.expect("policy");
        assert_eq!(policy.version, 1);
        let engine = policy.for_document();
        assert!(!engine.enabled.contains(PiiType::Ipv4));
        let masked =
            crate::pii_masker::mask_text("TC kimlik no 10000000146", &engine).expect("masked");
        assert!(!masked.text.contains("10000000146") && !masked.text.contains("[MASKED"));
        // The key stays the same until rotated; the rotation changes the surrogates.
        let again =
            crate::pii_masker::mask_text("TC kimlik no 10000000146", &policy.for_document())
                .expect("masked");
        assert_eq!(masked.text, again.text);
        assert_eq!(privacy.rotate_key(tenant).await.expect("rotate"), 2);
        let rotated = privacy.policy(tenant).await.expect("policy");
        let after =
            crate::pii_masker::mask_text("TC kimlik no 10000000146", &rotated.for_document())
                .expect("masked");
        assert_ne!(masked.text, after.text);
        // Another server secret cannot open the key: keyed masking is refused, not done otherwise.
        let other = Privacy::new(
            store,
            SecretBox::from_server_secret("another server secret of enough length"),
        );
        assert!(matches!(other.policy(tenant).await, Err(PrivacyError::Key)));
    }
}
