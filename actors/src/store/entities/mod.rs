//! sea-orm entities, one module per table. Added as the features that use them land.

pub mod execution;
