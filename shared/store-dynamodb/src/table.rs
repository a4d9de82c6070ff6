//! Creating the table with all its secondary indexes.

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, TableStatus,
};
use registry_store::StoreError;

use crate::DynamoStore;
use crate::errors;
use crate::keys::{ID, INDEXES, PK, SK};

fn attr(name: &str) -> Result<AttributeDefinition, StoreError> {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::S)
        .build()
        .map_err(|e| StoreError::Backend(e.to_string()))
}

fn key(name: &str, key_type: KeyType) -> Result<KeySchemaElement, StoreError> {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(key_type)
        .build()
        .map_err(|e| StoreError::Backend(e.to_string()))
}

impl DynamoStore {
    /// Creates the table (on-demand billing, every secondary index) unless it exists, then
    /// waits until it is active. Idempotent; used by `serve --create-table` and tests.
    pub async fn create_table(&self) -> Result<(), StoreError> {
        let mut request = self
            .client
            .create_table()
            .table_name(&self.table)
            .billing_mode(BillingMode::PayPerRequest)
            .key_schema(key(PK, KeyType::Hash)?)
            .key_schema(key(SK, KeyType::Range)?)
            .attribute_definitions(attr(PK)?)
            .attribute_definitions(attr(SK)?)
            .attribute_definitions(attr(ID)?);
        for (index, partition) in INDEXES {
            request = request.attribute_definitions(attr(partition)?).global_secondary_indexes(
                GlobalSecondaryIndex::builder()
                    .index_name(index)
                    .key_schema(key(partition, KeyType::Hash)?)
                    .key_schema(key(ID, KeyType::Range)?)
                    .projection(Projection::builder().projection_type(ProjectionType::All).build())
                    .build()
                    .map_err(|e| StoreError::Backend(e.to_string()))?,
            );
        }
        match request.send().await {
            Ok(_) => {}
            Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_in_use_exception()) => {}
            Err(e) => return Err(errors::sdk("CreateTable", e)),
        }
        for _ in 0..120 {
            let described = self
                .client
                .describe_table()
                .table_name(&self.table)
                .send()
                .await
                .map_err(|e| errors::sdk("DescribeTable", e))?;
            let status = described.table().and_then(|t| t.table_status());
            if status == Some(&TableStatus::Active) {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        Err(StoreError::Unavailable(format!("table {} did not become active", self.table)))
    }
}
