//! A tenant's privacy policy: which types are masked, from what confidence, and per type the masking
//! operator (`placeholder`, `numbered`, `surrogate`, `hash`, `redact`), versioned in the store; and the
//! tenant's pseudonym key, which the keyed operators derive from (32 random bytes, sealed like the
//! other secrets, made at the tenant's first need of it, never shown, replaced on rotation).
//!
//! [`Privacy`] is the one door every masking path goes through (preview, jobs, the CSV export, the
//! fine-tune training file): it reads a tenant's policy, with a short cache, and turns it into the
//! engine's [`Policy`], a fresh one per document (numbers restart with each document).
//!
//! Re-identification is off by default. A tenant that turns it on (`reidentification: true`) gets a
//! vault: every pseudonym its keyed operators write (`surrogate`, `hash`) is kept with the value it
//! stands for, sealed under the tenant's key (see `vault.rs`), and [`Privacy::resolve`] answers
//! them. Turning it off, or rotating the key, deletes the vault.

mod vault;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::pii_masker::{Journal, Operator, Operators, PiiType, Policy, SurrogateKey, TypeSet};
use crate::secrets::SecretBox;
use crate::store::{PrivacyPolicyRecord, PseudonymKeyRecord, Store, StoreError};

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
    /// What `numbered` counts within: `document` (default; numbers restart with each document) or
    /// `dataset` (the same value the same number in every row of a dataset: an execution's result
    /// names the value by a keyed hash, `[MASKED_<TYPE>_#<12 hex>]`, and a dataset build numbers
    /// those in order of appearance).
    #[serde(default)]
    pub numbered_scope: NumberedScope,
    /// Keep every pseudonym the keyed operators (`surrogate`, `hash`) write, with its value, in a
    /// vault sealed under the tenant's key, for owners to resolve with `POST /v1/pseudonyms/resolve`.
    /// Default false. Setting it false again deletes the vault.
    #[serde(default)]
    pub reidentification: bool,
}

/// What `numbered` counts within.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NumberedScope {
    #[default]
    Document,
    Dataset,
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

    /// Whether some type's operator derives from the tenant's key (`numbered` does across datasets).
    pub fn keyed(&self) -> bool {
        PiiType::ALL.iter().any(|&ty| {
            let operator = self.operator(ty);
            operator.keyed()
                || (operator == Operator::Numbered && self.numbered_scope == NumberedScope::Dataset)
        })
    }

    /// The types detected and masked (those not disabled).
    pub fn enabled(&self) -> TypeSet {
        PiiType::ALL
            .iter()
            .filter(|ty| !self.disabled_types.contains(ty))
            .fold(TypeSet::default(), |set, &ty| set.with(ty))
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
    /// The types masked, read once from `settings`.
    enabled: TypeSet,
    /// The tenant's key and its version, when some operator is keyed or re-identification is on.
    key: Option<(SurrogateKey, i64)>,
}

impl TenantPolicy {
    fn new(version: i64, settings: PrivacySettings, key: Option<(SurrogateKey, i64)>) -> Self {
        TenantPolicy {
            version,
            enabled: settings.enabled(),
            settings,
            key,
        }
    }

    /// The policy of a tenant that never set one: every type, every finding, placeholders.
    pub fn default_policy() -> TenantPolicy {
        TenantPolicy::new(0, PrivacySettings::default(), None)
    }

    /// The engine's policy for one document.
    pub fn for_document(&self) -> Policy {
        self.recorded().0
    }

    /// The engine's policy for one document, and when re-identification is on the journal its keyed
    /// operators write their pseudonyms to (for [`Privacy::remember`] once the document is masked).
    pub fn recorded(&self) -> (Policy, Option<Journal>) {
        let settings = &self.settings;
        let mut operators = Operators::new(
            |ty| settings.operator(ty),
            self.key.as_ref().map(|(key, _)| key.clone()),
        );
        let journal = (settings.reidentification && self.key.is_some()).then(Journal::default);
        if let Some(journal) = &journal {
            operators = operators.with_journal(journal.clone());
        }
        if settings.numbered_scope == NumberedScope::Dataset {
            operators = operators.numbered_across_datasets();
        }
        let replacer = (!operators.all_placeholders())
            .then(|| Arc::new(operators) as Arc<dyn crate::pii_masker::Replacer>);
        let policy = Policy {
            enabled: self.enabled,
            min_confidence: settings.min_confidence,
            replacer,
            ..Policy::default()
        };
        (policy, journal)
    }
}

/// How one request narrows the tenant's policy, never widening it: types it leaves as written (the
/// caller could read the document unmasked anyway; a type the tenant disabled stays disabled), and an
/// operator for every type that reveals neither a value nor which values are the same
/// (`placeholder` or `redact`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Narrowing {
    /// Types not masked in this request, beside those the tenant disabled.
    pub types_off: Vec<PiiType>,
    /// The operator of every type in this request, instead of the tenant's.
    pub operator: Option<Operator>,
}

impl Narrowing {
    /// The operators a request may ask for: those that keep no pseudonym.
    pub const OPERATORS: [Operator; 2] = [Operator::Placeholder, Operator::Redact];

    pub fn is_empty(&self) -> bool {
        self.types_off.is_empty() && self.operator.is_none()
    }
}

impl TenantPolicy {
    /// The policy as `narrowing` narrows it for one request (the same version: it is the tenant's
    /// policy, applied to less). An operator outside [`Narrowing::OPERATORS`] is ignored.
    pub fn narrowed(&self, narrowing: &Narrowing) -> TenantPolicy {
        let mut settings = self.settings.clone();
        settings.disabled_types.extend(&narrowing.types_off);
        if let Some(operator) = narrowing
            .operator
            .filter(|op| Narrowing::OPERATORS.contains(op))
        {
            settings.default_operator = operator;
            settings.operators.clear();
        }
        TenantPolicy::new(self.version, settings, self.key.clone())
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
            let enabled = settings.enabled();
            let written = PiiType::ALL
                .iter()
                .filter(|&&ty| enabled.contains(ty) && settings.operator(ty).writes_values(ty))
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
    /// A pseudonym was to be resolved while the tenant's re-identification is off.
    #[error(
        "re-identification is off for this tenant: there is no vault to resolve pseudonyms from \
         (an owner or admin turns it on with PUT /v1/settings/privacy and \"reidentification\": true; \
         only pseudonyms written after that resolve)"
    )]
    ReidentificationOff,
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
            PrivacyError::ReidentificationOff => {
                crate::error_code::ErrorCode::ReidentificationDisabled.as_str()
            }
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

    /// The tenant's newest policy version as stored, read; None while it never set one.
    pub async fn stored(
        &self,
        tenant_id: i64,
    ) -> Result<Option<(PrivacyPolicyRecord, PrivacySettings)>, PrivacyError> {
        let Some(record) = self.store.privacy_policy(tenant_id).await? else {
            return Ok(None);
        };
        let settings = serde_json::from_str(&record.body)
            .map_err(|error| PrivacyError::Stored(error.to_string()))?;
        Ok(Some((record, settings)))
    }

    async fn read(&self, tenant_id: i64) -> Result<TenantPolicy, PrivacyError> {
        let Some((record, settings)) = self.stored(tenant_id).await? else {
            return Ok(TenantPolicy::default_policy());
        };
        let key = if settings.keyed() || settings.reidentification {
            Some(self.key(tenant_id).await?)
        } else {
            None
        };
        Ok(TenantPolicy::new(record.version, settings, key))
    }

    /// The tenant's key and its version, made on its first need.
    async fn key(&self, tenant_id: i64) -> Result<(SurrogateKey, i64), PrivacyError> {
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
        Ok((SurrogateKey::new(&bytes), record.version))
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
    ) -> Result<PolicyChange, PrivacyError> {
        let settings = settings.normalized();
        if settings.keyed() || settings.reidentification {
            self.ensure_key(tenant_id).await?;
        }
        let body = serde_json::to_string(&settings)
            .map_err(|error| PrivacyError::Stored(error.to_string()))?;
        let version = self
            .store
            .put_privacy_policy(tenant_id, &body, user_id, chrono::Utc::now())
            .await?;
        self.forget(tenant_id);
        let vault_destroyed = if settings.reidentification {
            0
        } else {
            self.store.destroy_vault(tenant_id, None).await?
        };
        Ok(PolicyChange {
            version,
            settings,
            vault_destroyed,
        })
    }

    /// A new key for the tenant: every keyed pseudonym from now on differs from those before, and
    /// the vault (sealed under the old key) is deleted. Returns the new key and how many pseudonyms
    /// the vault held.
    pub async fn rotate_key(
        &self,
        tenant_id: i64,
    ) -> Result<(PseudonymKeyRecord, u64), PrivacyError> {
        let sealed = self.new_sealed_key()?;
        let record = self
            .store
            .rotate_pseudonym_key(tenant_id, &sealed, chrono::Utc::now())
            .await?;
        self.forget(tenant_id);
        let destroyed = self.store.destroy_vault(tenant_id, None).await?;
        Ok((record, destroyed))
    }

    /// Keeps in the tenant's vault the pseudonyms one document's masking wrote down (see
    /// [`TenantPolicy::recorded`]); returns how many were new. Then reads the policy again: if
    /// re-identification was turned off or the key rotated meanwhile, what was kept under the old
    /// state is deleted (whichever of the two writers came second deletes it).
    pub async fn remember(
        &self,
        tenant_id: i64,
        policy: &TenantPolicy,
        journal: &Journal,
    ) -> Result<u64, PrivacyError> {
        let Some((key, key_version)) = &policy.key else {
            return Ok(0);
        };
        let pseudonyms = std::mem::take(
            &mut *journal
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        if pseudonyms.is_empty() {
            return Ok(0);
        }
        let entries = vault::entries(key, tenant_id, &pseudonyms).ok_or(PrivacyError::Key)?;
        let kept = self
            .store
            .vault_insert(tenant_id, *key_version, &entries, chrono::Utc::now())
            .await?;
        let still_on = self
            .stored(tenant_id)
            .await?
            .is_some_and(|(_, settings)| settings.reidentification);
        if !still_on {
            self.store.destroy_vault(tenant_id, None).await?;
            return Ok(0);
        }
        let current = self.store.pseudonym_key(tenant_id).await?;
        if current.is_none_or(|record| record.version != *key_version) {
            self.store
                .destroy_vault(tenant_id, Some(*key_version))
                .await?;
            return Ok(0);
        }
        Ok(kept)
    }

    /// The values the tenant's vault keeps for each pseudonym (in the order asked; an unknown
    /// pseudonym has none, one that two values' pseudonyms met has both). Refused while
    /// re-identification is off.
    pub async fn resolve(
        &self,
        tenant_id: i64,
        pseudonyms: &[String],
    ) -> Result<Vec<Vec<(PiiType, String)>>, PrivacyError> {
        let on = self
            .stored(tenant_id)
            .await?
            .is_some_and(|(_, settings)| settings.reidentification);
        if !on {
            return Err(PrivacyError::ReidentificationOff);
        }
        let (key, key_version) = self.key(tenant_id).await?;
        let digests: Vec<String> = pseudonyms
            .iter()
            .map(|pseudonym| vault::pseudonym_digest(&key, pseudonym))
            .collect();
        let mut unique = digests.clone();
        unique.sort();
        unique.dedup();
        let rows = self
            .store
            .vault_lookup(tenant_id, key_version, &unique)
            .await?;
        Ok(digests
            .iter()
            .map(|digest| {
                rows.iter()
                    .filter(|row| &row.pseudonym_digest == digest)
                    .filter_map(|row| {
                        let ty = PiiType::from_name(&row.pii_type)?;
                        Some((ty, vault::open(&key, tenant_id, row)?))
                    })
                    .collect()
            })
            .collect())
    }

    /// Deletes the vault's pseudonyms of a person's values (a data-subject erasure): each value as
    /// its type, or as every type when none is given; how many went. Nothing to do without a key.
    pub async fn forget_values(
        &self,
        tenant_id: i64,
        values: &[(Option<PiiType>, String)],
    ) -> Result<u64, PrivacyError> {
        if self.store.pseudonym_key(tenant_id).await?.is_none() {
            return Ok(0);
        }
        let (key, _) = self.key(tenant_id).await?;
        let digests: Vec<String> = values
            .iter()
            .flat_map(|(ty, value)| {
                let types = match ty {
                    Some(ty) => vec![*ty],
                    None => PiiType::ALL.to_vec(),
                };
                types
                    .into_iter()
                    .map(|ty| vault::value_digest(&key, ty, value.trim()))
                    .collect::<Vec<_>>()
            })
            .collect();
        Ok(self.store.vault_forget(tenant_id, &digests).await?)
    }

    /// How many pseudonyms the tenant's vault holds.
    pub async fn vault_size(&self, tenant_id: i64) -> Result<i64, PrivacyError> {
        Ok(self.store.vault_size(tenant_id).await?)
    }
}

/// A policy change as made: its version, the policy as stored, and how many pseudonyms the vault
/// held when re-identification was (or stayed) off.
#[derive(Debug)]
pub struct PolicyChange {
    pub version: i64,
    pub settings: PrivacySettings,
    pub vault_destroyed: u64,
}

#[cfg(test)]
mod tests;
