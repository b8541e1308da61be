//! Refresh-token families and API keys. Only hashes are stored; callers hash before calling.

use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, JoinType, QueryFilter, QueryOrder, QuerySelect,
    Set, TransactionTrait,
};

use super::entities::{api_key, membership, refresh_token, user};
use super::{unique, Store, StoreError};

pub type ApiKeyRecord = api_key::Model;

/// The result of presenting a refresh token for rotation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefreshOutcome {
    /// The old token is revoked and the new one stored; the pair belongs to this user and tenant.
    Rotated {
        user_id: i64,
        tenant_id: i64,
    },
    /// A revoked token was presented again: the whole family is now revoked.
    Reused {
        user_id: i64,
        family_id: String,
    },
    Expired,
    Unknown,
}

impl Store {
    /// Stores the first refresh token of a new family (at login).
    pub async fn insert_refresh_token(
        &self,
        user_id: i64,
        tenant_id: i64,
        family_id: &str,
        token_hash: &str,
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        refresh_token::ActiveModel {
            user_id: Set(user_id),
            tenant_id: Set(tenant_id),
            family_id: Set(family_id.to_string()),
            token_hash: Set(token_hash.to_string()),
            expires_at: Set(expires_at),
            revoked_at: Set(None),
            created_at: Set(now),
            ..Default::default()
        }
        .insert(self.connection())
        .await?;
        Ok(())
    }

    async fn revoke_family(&self, family_id: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
        refresh_token::Entity::update_many()
            .col_expr(refresh_token::Column::RevokedAt, Expr::value(now))
            .filter(refresh_token::Column::FamilyId.eq(family_id))
            .filter(refresh_token::Column::RevokedAt.is_null())
            .exec(self.connection())
            .await?;
        Ok(())
    }

    /// Revokes `old_hash` and stores `new_hash` in the same family, atomically. The new pair is for the
    /// user's current tenant (which changes when they join a team).
    pub async fn rotate_refresh_token(
        &self,
        old_hash: &str,
        new_hash: &str,
        new_expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<RefreshOutcome, StoreError> {
        let Some(old) = refresh_token::Entity::find()
            .filter(refresh_token::Column::TokenHash.eq(old_hash))
            .one(self.connection())
            .await?
        else {
            return Ok(RefreshOutcome::Unknown);
        };
        let reused = RefreshOutcome::Reused {
            user_id: old.user_id,
            family_id: old.family_id.clone(),
        };
        if old.revoked_at.is_some() {
            self.revoke_family(&old.family_id, now).await?;
            return Ok(reused);
        }
        if old.expires_at <= now {
            return Ok(RefreshOutcome::Expired);
        }
        let txn = self.connection().begin().await?;
        let claimed = refresh_token::Entity::update_many()
            .col_expr(refresh_token::Column::RevokedAt, Expr::value(now))
            .filter(refresh_token::Column::Id.eq(old.id))
            .filter(refresh_token::Column::RevokedAt.is_null())
            .exec(&txn)
            .await?;
        if claimed.rows_affected != 1 {
            // Another request rotated it first: two holders of one token means theft.
            txn.rollback().await?;
            self.revoke_family(&old.family_id, now).await?;
            return Ok(reused);
        }
        let tenant_id = user::Entity::find_by_id(old.user_id)
            .one(&txn)
            .await?
            .map(|u| u.tenant_id)
            .unwrap_or(old.tenant_id);
        refresh_token::ActiveModel {
            user_id: Set(old.user_id),
            tenant_id: Set(tenant_id),
            family_id: Set(old.family_id.clone()),
            token_hash: Set(new_hash.to_string()),
            expires_at: Set(new_expires_at),
            revoked_at: Set(None),
            created_at: Set(now),
            ..Default::default()
        }
        .insert(&txn)
        .await?;
        txn.commit().await?;
        Ok(RefreshOutcome::Rotated {
            user_id: old.user_id,
            tenant_id,
        })
    }

    /// Revokes one refresh token; unknown or already revoked tokens are fine (logout is idempotent).
    pub async fn revoke_refresh_token(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        let token = refresh_token::Entity::find()
            .filter(refresh_token::Column::TokenHash.eq(token_hash))
            .one(self.connection())
            .await?;
        refresh_token::Entity::update_many()
            .col_expr(refresh_token::Column::RevokedAt, Expr::value(now))
            .filter(refresh_token::Column::TokenHash.eq(token_hash))
            .filter(refresh_token::Column::RevokedAt.is_null())
            .exec(self.connection())
            .await?;
        Ok(token.map(|t| t.user_id))
    }

    pub async fn create_api_key(
        &self,
        tenant_id: i64,
        user_id: i64,
        (name, scope): (&str, &str),
        prefix: &str,
        key_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<ApiKeyRecord, StoreError> {
        api_key::ActiveModel {
            tenant_id: Set(tenant_id),
            user_id: Set(user_id),
            name: Set(name.to_string()),
            scope: Set(scope.to_string()),
            prefix: Set(prefix.to_string()),
            key_hash: Set(key_hash.to_string()),
            created_at: Set(now),
            last_used_at: Set(None),
            revoked_at: Set(None),
            ..Default::default()
        }
        .insert(self.connection())
        .await
        .map_err(unique)
    }

    /// The tenant's API keys, newest first (revoked ones included, marked).
    pub async fn list_api_keys(&self, tenant_id: i64) -> Result<Vec<ApiKeyRecord>, StoreError> {
        Ok(api_key::Entity::find()
            .filter(api_key::Column::TenantId.eq(tenant_id))
            .order_by_desc(api_key::Column::Id)
            .all(self.connection())
            .await?)
    }

    /// Revokes a key of this tenant; `false` when the tenant has no such key.
    pub async fn revoke_api_key(
        &self,
        tenant_id: i64,
        key_id: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let found = api_key::Entity::find_by_id(key_id)
            .filter(api_key::Column::TenantId.eq(tenant_id))
            .one(self.connection())
            .await?;
        if found.is_none() {
            return Ok(false);
        }
        api_key::Entity::update_many()
            .col_expr(api_key::Column::RevokedAt, Expr::value(now))
            .filter(api_key::Column::Id.eq(key_id))
            .filter(api_key::Column::RevokedAt.is_null())
            .exec(self.connection())
            .await?;
        Ok(true)
    }

    /// The unrevoked key with this prefix and its owner's role in the key's tenant (none when the owner
    /// is no longer a member), in one query: it runs on every request authenticated by a key.
    pub async fn active_api_key(
        &self,
        prefix: &str,
    ) -> Result<Option<(ApiKeyRecord, Option<String>)>, StoreError> {
        let membership = api_key::Entity::belongs_to(membership::Entity)
            .from((api_key::Column::TenantId, api_key::Column::UserId))
            .to((membership::Column::TenantId, membership::Column::UserId))
            .into();
        Ok(api_key::Entity::find()
            .select_also(membership::Entity)
            .join(JoinType::LeftJoin, membership)
            .filter(api_key::Column::Prefix.eq(prefix))
            .filter(api_key::Column::RevokedAt.is_null())
            .one(self.connection())
            .await?
            .map(|(key, member)| (key, member.map(|m| m.role))))
    }

    /// Records use of a key, at most once a minute so that authentication stays read-only.
    pub async fn touch_api_key(
        &self,
        key: &ApiKeyRecord,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        if key
            .last_used_at
            .is_some_and(|last| now - last < Duration::seconds(60))
        {
            return Ok(());
        }
        api_key::Entity::update_many()
            .col_expr(api_key::Column::LastUsedAt, Expr::value(now))
            .filter(api_key::Column::Id.eq(key.id))
            .exec(self.connection())
            .await?;
        Ok(())
    }
}
