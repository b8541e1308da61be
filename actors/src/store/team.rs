//! Memberships and invitations: who belongs to which tenant, with which role.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, Set,
    TransactionTrait,
};
use serde::Serialize;

use super::entities::{api_key, invitation, membership, user};
use super::{Store, StoreError};

#[derive(Clone, Debug, Serialize)]
pub struct MemberRecord {
    pub user_id: i64,
    pub email: String,
    pub role: String,
    pub joined_at: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemoveOutcome {
    Removed,
    NotFound,
    LastOwner,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvitationCheck {
    Accepted { tenant_id: i64, role: String },
    Unknown,
    Expired,
    AlreadyAccepted,
    EmailMismatch,
}

impl Store {
    pub async fn role_of(
        &self,
        tenant_id: i64,
        user_id: i64,
    ) -> Result<Option<String>, StoreError> {
        Ok(membership::Entity::find()
            .filter(membership::Column::TenantId.eq(tenant_id))
            .filter(membership::Column::UserId.eq(user_id))
            .one(self.connection())
            .await?
            .map(|m| m.role))
    }

    pub async fn list_members(&self, tenant_id: i64) -> Result<Vec<MemberRecord>, StoreError> {
        let rows = membership::Entity::find()
            .filter(membership::Column::TenantId.eq(tenant_id))
            .order_by_asc(membership::Column::Id)
            .all(self.connection())
            .await?;
        let ids: Vec<i64> = rows.iter().map(|m| m.user_id).collect();
        let users = user::Entity::find()
            .filter(user::Column::Id.is_in(ids))
            .all(self.connection())
            .await?;
        Ok(rows
            .into_iter()
            .filter_map(|m| {
                let user = users.iter().find(|u| u.id == m.user_id)?;
                Some(MemberRecord {
                    user_id: m.user_id,
                    email: user.email.clone(),
                    role: m.role,
                    joined_at: m.created_at,
                })
            })
            .collect())
    }

    /// Removes a member from a tenant, revoking their API keys there. The last owner stays.
    pub async fn remove_member(
        &self,
        tenant_id: i64,
        user_id: i64,
        now: DateTime<Utc>,
    ) -> Result<RemoveOutcome, StoreError> {
        let txn = self.connection().begin().await?;
        // Two removals at once must not both see two owners (and SQLite must not upgrade a read).
        if !self.lock_tenant(&txn, tenant_id).await? {
            return Ok(RemoveOutcome::NotFound);
        }
        let Some(found) = membership::Entity::find()
            .filter(membership::Column::TenantId.eq(tenant_id))
            .filter(membership::Column::UserId.eq(user_id))
            .one(&txn)
            .await?
        else {
            return Ok(RemoveOutcome::NotFound);
        };
        if found.role == "owner" {
            let owners = membership::Entity::find()
                .filter(membership::Column::TenantId.eq(tenant_id))
                .filter(membership::Column::Role.eq("owner"))
                .count(&txn)
                .await?;
            if owners <= 1 {
                return Ok(RemoveOutcome::LastOwner);
            }
        }
        membership::Entity::delete_by_id(found.id)
            .exec(&txn)
            .await?;
        api_key::Entity::update_many()
            .col_expr(api_key::Column::RevokedAt, Expr::value(now))
            .filter(api_key::Column::TenantId.eq(tenant_id))
            .filter(api_key::Column::UserId.eq(user_id))
            .filter(api_key::Column::RevokedAt.is_null())
            .exec(&txn)
            .await?;
        // A user acting in the tenant they were removed from falls back to another membership.
        if let Some(removed) = user::Entity::find_by_id(user_id).one(&txn).await? {
            if removed.tenant_id == tenant_id {
                if let Some(other) = membership::Entity::find()
                    .filter(membership::Column::UserId.eq(user_id))
                    .order_by_asc(membership::Column::Id)
                    .one(&txn)
                    .await?
                {
                    user::Entity::update_many()
                        .col_expr(user::Column::TenantId, Expr::value(other.tenant_id))
                        .col_expr(user::Column::UpdatedAt, Expr::value(now))
                        .filter(user::Column::Id.eq(user_id))
                        .exec(&txn)
                        .await?;
                }
            }
        }
        txn.commit().await?;
        Ok(RemoveOutcome::Removed)
    }

    #[allow(clippy::too_many_arguments)]
    pub async fn create_invitation(
        &self,
        tenant_id: i64,
        email: &str,
        role: &str,
        token_hash: &str,
        invited_by_user_id: i64,
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<invitation::Model, StoreError> {
        Ok(invitation::ActiveModel {
            tenant_id: Set(tenant_id),
            email: Set(email.to_string()),
            role: Set(role.to_string()),
            token_hash: Set(token_hash.to_string()),
            invited_by_user_id: Set(Some(invited_by_user_id)),
            expires_at: Set(expires_at),
            accepted_at: Set(None),
            created_at: Set(now),
            ..Default::default()
        }
        .insert(self.connection())
        .await?)
    }

    /// Accepts an invitation for `user_id` (whose email must be the invited one): adds the membership
    /// and makes the inviting tenant the user's current tenant.
    pub async fn accept_invitation(
        &self,
        token_hash: &str,
        user_id: i64,
        user_email: &str,
        now: DateTime<Utc>,
    ) -> Result<InvitationCheck, StoreError> {
        let Some(invite) = invitation::Entity::find()
            .filter(invitation::Column::TokenHash.eq(token_hash))
            .one(self.connection())
            .await?
        else {
            return Ok(InvitationCheck::Unknown);
        };
        if invite.accepted_at.is_some() {
            return Ok(InvitationCheck::AlreadyAccepted);
        }
        if invite.expires_at <= now {
            return Ok(InvitationCheck::Expired);
        }
        if !invite.email.eq_ignore_ascii_case(user_email) {
            return Ok(InvitationCheck::EmailMismatch);
        }
        let txn = self.connection().begin().await?;
        let claimed = invitation::Entity::update_many()
            .col_expr(invitation::Column::AcceptedAt, Expr::value(now))
            .filter(invitation::Column::Id.eq(invite.id))
            .filter(invitation::Column::AcceptedAt.is_null())
            .exec(&txn)
            .await?;
        if claimed.rows_affected != 1 {
            txn.rollback().await?;
            return Ok(InvitationCheck::AlreadyAccepted);
        }
        let existing = membership::Entity::find()
            .filter(membership::Column::TenantId.eq(invite.tenant_id))
            .filter(membership::Column::UserId.eq(user_id))
            .one(&txn)
            .await?;
        if existing.is_none() {
            membership::ActiveModel {
                tenant_id: Set(invite.tenant_id),
                user_id: Set(user_id),
                role: Set(invite.role.clone()),
                created_at: Set(now),
                ..Default::default()
            }
            .insert(&txn)
            .await?;
        }
        user::Entity::update_many()
            .col_expr(user::Column::TenantId, Expr::value(invite.tenant_id))
            .col_expr(user::Column::UpdatedAt, Expr::value(now))
            .filter(user::Column::Id.eq(user_id))
            .exec(&txn)
            .await?;
        txn.commit().await?;
        let role = existing.map(|m| m.role).unwrap_or(invite.role);
        Ok(InvitationCheck::Accepted {
            tenant_id: invite.tenant_id,
            role,
        })
    }
}
