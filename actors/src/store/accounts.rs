//! Tenants, users and one-time email tokens (verification, password reset).

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set, TransactionTrait};

use super::entities::{
    email_token, membership, refresh_token, tenant, tenant_usage, user, workspace,
};
use super::{unique, Store, StoreError};

fn new_email_token(
    user_id: i64,
    purpose: &str,
    token_hash: &str,
    expires_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> email_token::ActiveModel {
    email_token::ActiveModel {
        user_id: Set(user_id),
        purpose: Set(purpose.to_string()),
        token_hash: Set(token_hash.to_string()),
        expires_at: Set(expires_at),
        used_at: Set(None),
        created_at: Set(now),
        ..Default::default()
    }
}

/// What signup created.
#[derive(Clone, Debug)]
pub struct CreatedAccount {
    pub tenant_id: i64,
    pub user_id: i64,
}

/// The result of presenting a one-time token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenCheck {
    /// Valid: now consumed. Carries the user id.
    Consumed(i64),
    Unknown,
    AlreadyUsed,
    Expired,
}

impl Store {
    /// Creates tenant (inactive, plan `trial`), workspace, owner user, membership, usage row and the
    /// verification token, in one transaction. A taken email is [`StoreError::Duplicate`].
    pub async fn create_account(
        &self,
        email: &str,
        password_hash: &str,
        verification_token_hash: &str,
        token_expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<CreatedAccount, StoreError> {
        let txn = self.connection().begin().await?;
        let tenant = tenant::ActiveModel {
            name: Set(email.to_string()),
            plan: Set("trial".to_string()),
            status: Set("pending_verification".to_string()),
            created_at: Set(now),
            updated_at: Set(now),
            ..Default::default()
        }
        .insert(&txn)
        .await?;
        workspace::ActiveModel {
            tenant_id: Set(tenant.id),
            name: Set("Default workspace".to_string()),
            created_at: Set(now),
            ..Default::default()
        }
        .insert(&txn)
        .await?;
        let user = user::ActiveModel {
            tenant_id: Set(tenant.id),
            email: Set(email.to_string()),
            password_hash: Set(password_hash.to_string()),
            status: Set("pending_verification".to_string()),
            email_verified_at: Set(None),
            created_at: Set(now),
            updated_at: Set(now),
            ..Default::default()
        }
        .insert(&txn)
        .await
        .map_err(unique)?;
        membership::ActiveModel {
            tenant_id: Set(tenant.id),
            user_id: Set(user.id),
            role: Set("owner".to_string()),
            created_at: Set(now),
            ..Default::default()
        }
        .insert(&txn)
        .await?;
        tenant_usage::ActiveModel {
            tenant_id: Set(tenant.id),
            documents_processed: Set(0),
            pages_processed: Set(0),
            bytes_processed: Set(0),
            updated_at: Set(now),
        }
        .insert(&txn)
        .await?;
        new_email_token(
            user.id,
            "verify_email",
            verification_token_hash,
            token_expires_at,
            now,
        )
        .insert(&txn)
        .await?;
        txn.commit().await?;
        Ok(CreatedAccount {
            tenant_id: tenant.id,
            user_id: user.id,
        })
    }

    pub async fn user_by_email(&self, email: &str) -> Result<Option<user::Model>, StoreError> {
        Ok(user::Entity::find()
            .filter(user::Column::Email.eq(email))
            .one(self.connection())
            .await?)
    }

    pub async fn user_by_id(&self, user_id: i64) -> Result<Option<user::Model>, StoreError> {
        Ok(user::Entity::find_by_id(user_id)
            .one(self.connection())
            .await?)
    }

    pub async fn tenant_by_id(&self, tenant_id: i64) -> Result<Option<tenant::Model>, StoreError> {
        Ok(tenant::Entity::find_by_id(tenant_id)
            .one(self.connection())
            .await?)
    }

    /// Stores a new one-time token for `purpose`, invalidating the user's unused ones of that purpose.
    pub async fn replace_email_token(
        &self,
        user_id: i64,
        purpose: &str,
        token_hash: &str,
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let txn = self.connection().begin().await?;
        email_token::Entity::update_many()
            .col_expr(email_token::Column::UsedAt, Expr::value(now))
            .filter(email_token::Column::UserId.eq(user_id))
            .filter(email_token::Column::Purpose.eq(purpose))
            .filter(email_token::Column::UsedAt.is_null())
            .exec(&txn)
            .await?;
        new_email_token(user_id, purpose, token_hash, expires_at, now)
            .insert(&txn)
            .await?;
        txn.commit().await?;
        Ok(())
    }

    /// Consumes a one-time token of `purpose` exactly once, even under concurrent attempts.
    pub async fn consume_email_token(
        &self,
        purpose: &str,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<TokenCheck, StoreError> {
        let Some(token) = email_token::Entity::find()
            .filter(email_token::Column::TokenHash.eq(token_hash))
            .filter(email_token::Column::Purpose.eq(purpose))
            .one(self.connection())
            .await?
        else {
            return Ok(TokenCheck::Unknown);
        };
        if token.used_at.is_some() {
            return Ok(TokenCheck::AlreadyUsed);
        }
        if token.expires_at <= now {
            return Ok(TokenCheck::Expired);
        }
        let claimed = email_token::Entity::update_many()
            .col_expr(email_token::Column::UsedAt, Expr::value(now))
            .filter(email_token::Column::Id.eq(token.id))
            .filter(email_token::Column::UsedAt.is_null())
            .exec(self.connection())
            .await?;
        if claimed.rows_affected == 1 {
            Ok(TokenCheck::Consumed(token.user_id))
        } else {
            Ok(TokenCheck::AlreadyUsed)
        }
    }

    /// Marks the user verified and activates every tenant they own that waits for verification; the
    /// tenants it activated.
    pub async fn activate_user(
        &self,
        user_id: i64,
        now: DateTime<Utc>,
    ) -> Result<Vec<i64>, StoreError> {
        let txn = self.connection().begin().await?;
        user::Entity::update_many()
            .col_expr(user::Column::Status, Expr::value("active"))
            .col_expr(user::Column::EmailVerifiedAt, Expr::value(now))
            .col_expr(user::Column::UpdatedAt, Expr::value(now))
            .filter(user::Column::Id.eq(user_id))
            .exec(&txn)
            .await?;
        let owned: Vec<i64> = membership::Entity::find()
            .filter(membership::Column::UserId.eq(user_id))
            .filter(membership::Column::Role.eq("owner"))
            .all(&txn)
            .await?
            .into_iter()
            .map(|m| m.tenant_id)
            .collect();
        let waiting: Vec<i64> = tenant::Entity::find()
            .filter(tenant::Column::Id.is_in(owned))
            .filter(tenant::Column::Status.eq("pending_verification"))
            .all(&txn)
            .await?
            .into_iter()
            .map(|t| t.id)
            .collect();
        tenant::Entity::update_many()
            .col_expr(tenant::Column::Status, Expr::value("active"))
            .col_expr(tenant::Column::UpdatedAt, Expr::value(now))
            .filter(tenant::Column::Id.is_in(waiting.clone()))
            .exec(&txn)
            .await?;
        txn.commit().await?;
        Ok(waiting)
    }

    /// Sets a new password hash and revokes every refresh token of the user.
    pub async fn set_password(
        &self,
        user_id: i64,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let txn = self.connection().begin().await?;
        user::Entity::update_many()
            .col_expr(user::Column::PasswordHash, Expr::value(password_hash))
            .col_expr(user::Column::UpdatedAt, Expr::value(now))
            .filter(user::Column::Id.eq(user_id))
            .exec(&txn)
            .await?;
        refresh_token::Entity::update_many()
            .col_expr(refresh_token::Column::RevokedAt, Expr::value(now))
            .filter(refresh_token::Column::UserId.eq(user_id))
            .filter(refresh_token::Column::RevokedAt.is_null())
            .exec(&txn)
            .await?;
        txn.commit().await?;
        Ok(())
    }
}
