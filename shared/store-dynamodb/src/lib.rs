//! DynamoDB single-table backend of the registry `Store` trait.
