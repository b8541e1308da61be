//! Small helpers that keep the migrations short and identical on both backends.

use sea_orm_migration::prelude::*;

pub fn name(value: &str) -> Alias {
    Alias::new(value)
}

/// A new table statement with an auto-incrementing 64-bit `id` primary key.
pub fn table_with_id(table: &str) -> TableCreateStatement {
    Table::create()
        .table(name(table))
        .if_not_exists()
        .col(
            ColumnDef::new(name("id"))
                .big_integer()
                .not_null()
                .auto_increment()
                .primary_key(),
        )
        .to_owned()
}

/// A new table statement whose primary key is a caller-generated string id (jobs, datasets, fine-tunes).
pub fn table_with_string_id(table: &str) -> TableCreateStatement {
    Table::create()
        .table(name(table))
        .if_not_exists()
        .col(
            ColumnDef::new(name("id"))
                .string_len(64)
                .not_null()
                .primary_key(),
        )
        .to_owned()
}

pub fn text(column: &str) -> ColumnDef {
    ColumnDef::new(name(column)).text().not_null().to_owned()
}

pub fn text_null(column: &str) -> ColumnDef {
    ColumnDef::new(name(column)).text().null().to_owned()
}

pub fn string(column: &str) -> ColumnDef {
    ColumnDef::new(name(column))
        .string_len(255)
        .not_null()
        .to_owned()
}

pub fn string_null(column: &str) -> ColumnDef {
    ColumnDef::new(name(column))
        .string_len(255)
        .null()
        .to_owned()
}

pub fn big(column: &str) -> ColumnDef {
    ColumnDef::new(name(column))
        .big_integer()
        .not_null()
        .to_owned()
}

pub fn big_default(column: &str, default: i64) -> ColumnDef {
    ColumnDef::new(name(column))
        .big_integer()
        .not_null()
        .default(default)
        .to_owned()
}

pub fn big_null(column: &str) -> ColumnDef {
    ColumnDef::new(name(column)).big_integer().null().to_owned()
}

pub fn int_default(column: &str, default: i32) -> ColumnDef {
    ColumnDef::new(name(column))
        .integer()
        .not_null()
        .default(default)
        .to_owned()
}

pub fn boolean(column: &str, default: bool) -> ColumnDef {
    ColumnDef::new(name(column))
        .boolean()
        .not_null()
        .default(default)
        .to_owned()
}

pub fn timestamp(column: &str) -> ColumnDef {
    ColumnDef::new(name(column))
        .timestamp_with_time_zone()
        .not_null()
        .to_owned()
}

pub fn timestamp_null(column: &str) -> ColumnDef {
    ColumnDef::new(name(column))
        .timestamp_with_time_zone()
        .null()
        .to_owned()
}

/// `column` references `parent.id`; rows go with their parent.
pub fn cascade(table: &str, column: &str, parent: &str) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .name(format!("fk_{table}_{column}"))
        .from(name(table), name(column))
        .to(name(parent), name("id"))
        .on_delete(ForeignKeyAction::Cascade)
        .to_owned()
}

/// `column` references `parent.id`; the reference is cleared when the parent goes.
pub fn set_null(table: &str, column: &str, parent: &str) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .name(format!("fk_{table}_{column}"))
        .from(name(table), name(column))
        .to(name(parent), name("id"))
        .on_delete(ForeignKeyAction::SetNull)
        .to_owned()
}

pub fn index(table: &str, columns: &[&str], unique: bool) -> IndexCreateStatement {
    let mut statement = Index::create();
    statement
        .name(format!("ix_{table}_{}", columns.join("_")))
        .table(name(table))
        .if_not_exists();
    for column in columns {
        statement.col(name(column));
    }
    if unique {
        statement.unique();
    }
    statement.to_owned()
}

/// Adds `column` to `table` (a migration's `up` that adds one column).
pub async fn add_column(
    manager: &SchemaManager<'_>,
    table: &str,
    mut column: ColumnDef,
) -> Result<(), DbErr> {
    manager
        .alter_table(
            Table::alter()
                .table(name(table))
                .add_column(&mut column)
                .to_owned(),
        )
        .await
}

/// Drops `column` from `table` (the `down` of [`add_column`]).
pub async fn drop_column(
    manager: &SchemaManager<'_>,
    table: &str,
    column: &str,
) -> Result<(), DbErr> {
    manager
        .alter_table(
            Table::alter()
                .table(name(table))
                .drop_column(name(column))
                .to_owned(),
        )
        .await
}
