//! `documents`: one uploaded (or connector-fetched) original, stored as a blob.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "documents")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub tenant_id: i64,
    /// The file's name, sealed (a `store::Sealed` value of `SealedField::DocumentName`): open it
    /// with the tenant's data key.
    #[sea_orm(column_name = "filename")]
    pub sealed_filename: String,
    pub mime: String,
    pub format: String,
    pub size_bytes: i64,
    pub sha256: String,
    /// `upload` or `connector`.
    pub source: String,
    pub connector_id: Option<i64>,
    /// The object's key in its bucket (connector documents), sealed (`store::Sealed`, field
    /// `SourceKey`): a path names people as a file name does.
    #[sea_orm(column_name = "source_key")]
    pub sealed_source_key: Option<String>,
    /// A keyed digest of that key, by which syncs recognise an object they took.
    pub source_digest: Option<String>,
    /// The object's ETag when it was fetched (connector documents).
    pub source_etag: Option<String>,
    pub blob_key: String,
    pub created_at: DateTimeUtc,
    /// When the destruction run deleted the original (its retention ended); the record stays.
    pub original_destroyed_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
