//! The table: one description ([`TABLE`]) that [`DynamoStore::create_table`] creates and
//! `infra/template.yaml` declares (a test of `registry-e2e` compares the template, and
//! the table created on the local server, with it).

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, StreamSpecification, StreamViewType, TableStatus,
    TimeToLiveSpecification,
};
use registry_store::StoreError;
use serde_json::{Value, json};

use crate::DynamoStore;
use crate::errors;
use crate::keys::{ID, INDEXES, PK, SK};
use crate::session_items::EXPIRES_AT;

/// What the registry's table is: keys, secondary indexes, stream, TTL and billing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableDescription {
    /// Partition key attribute (S).
    pub partition_key: &'static str,
    /// Sort key attribute (S).
    pub sort_key: &'static str,
    /// Global secondary indexes: name and partition key attribute (S); each is sorted by
    /// [`Self::index_sort_key`] and projects every attribute.
    pub indexes: &'static [(&'static str, &'static str)],
    /// Sort key attribute (S) of every index.
    pub index_sort_key: &'static str,
    /// What the table's stream carries (the event forwarder reads new images).
    pub stream_view_type: &'static str,
    /// The TTL attribute (counter items expire on their own).
    pub ttl_attribute: &'static str,
    /// On-demand capacity.
    pub billing_mode: &'static str,
}

/// The registry's table.
pub const TABLE: TableDescription = TableDescription {
    partition_key: PK,
    sort_key: SK,
    indexes: &INDEXES,
    index_sort_key: ID,
    stream_view_type: "NEW_IMAGE",
    ttl_attribute: EXPIRES_AT,
    billing_mode: "PAY_PER_REQUEST",
};

impl TableDescription {
    /// The description as the properties of an `AWS::DynamoDB::Table` resource (the
    /// ones it fixes: `KeySchema`, `AttributeDefinitions` sorted by name,
    /// `GlobalSecondaryIndexes`, `StreamSpecification`, `TimeToLiveSpecification`,
    /// `BillingMode`).
    pub fn cloudformation(&self) -> Value {
        let key = |name: &str, key_type: &str| json!({"AttributeName": name, "KeyType": key_type});
        let mut attributes: Vec<&str> =
            vec![self.partition_key, self.sort_key, self.index_sort_key];
        attributes.extend(self.indexes.iter().map(|(_, partition)| *partition));
        attributes.sort_unstable();
        attributes.dedup();
        let indexes: Vec<Value> = self
            .indexes
            .iter()
            .map(|(name, partition)| {
                json!({
                    "IndexName": name,
                    "KeySchema": [key(partition, "HASH"), key(self.index_sort_key, "RANGE")],
                    "Projection": {"ProjectionType": "ALL"},
                })
            })
            .collect();
        json!({
            "BillingMode": self.billing_mode,
            "KeySchema": [key(self.partition_key, "HASH"), key(self.sort_key, "RANGE")],
            "AttributeDefinitions": attributes
                .iter()
                .map(|a| json!({"AttributeName": a, "AttributeType": "S"}))
                .collect::<Vec<_>>(),
            "GlobalSecondaryIndexes": indexes,
            "StreamSpecification": {"StreamViewType": self.stream_view_type},
            "TimeToLiveSpecification": {"AttributeName": self.ttl_attribute, "Enabled": true},
        })
    }
}

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
    /// Creates the table of [`TABLE`] (keys, every secondary index, stream, on-demand
    /// billing) unless it exists, waits until it is active, then turns on its TTL.
    /// Idempotent; used by `serve --create-table` and tests.
    pub async fn create_table(&self) -> Result<(), StoreError> {
        let backend = |e: aws_sdk_dynamodb::error::BuildError| StoreError::Backend(e.to_string());
        let d = TABLE;
        let mut request = self
            .client
            .create_table()
            .table_name(&self.table)
            .billing_mode(BillingMode::from(d.billing_mode))
            .key_schema(key(d.partition_key, KeyType::Hash)?)
            .key_schema(key(d.sort_key, KeyType::Range)?)
            .attribute_definitions(attr(d.partition_key)?)
            .attribute_definitions(attr(d.sort_key)?)
            .attribute_definitions(attr(d.index_sort_key)?)
            .stream_specification(
                StreamSpecification::builder()
                    .stream_enabled(true)
                    .stream_view_type(StreamViewType::from(d.stream_view_type))
                    .build()
                    .map_err(backend)?,
            );
        for (index, partition) in d.indexes {
            request = request.attribute_definitions(attr(partition)?).global_secondary_indexes(
                GlobalSecondaryIndex::builder()
                    .index_name(*index)
                    .key_schema(key(partition, KeyType::Hash)?)
                    .key_schema(key(d.index_sort_key, KeyType::Range)?)
                    .projection(Projection::builder().projection_type(ProjectionType::All).build())
                    .build()
                    .map_err(backend)?,
            );
        }
        match request.send().await {
            Ok(_) => {}
            Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_in_use_exception()) => {}
            Err(e) => return Err(errors::sdk("CreateTable", e)),
        }
        self.wait_active().await?;
        let ttl = self
            .client
            .describe_time_to_live()
            .table_name(&self.table)
            .send()
            .await
            .map_err(|e| errors::sdk("DescribeTimeToLive", e))?;
        if ttl.time_to_live_description().and_then(|t| t.attribute_name()) == Some(d.ttl_attribute)
        {
            return Ok(());
        }
        self.client
            .update_time_to_live()
            .table_name(&self.table)
            .time_to_live_specification(
                TimeToLiveSpecification::builder()
                    .attribute_name(d.ttl_attribute)
                    .enabled(true)
                    .build()
                    .map_err(backend)?,
            )
            .send()
            .await
            .map_err(|e| errors::sdk("UpdateTimeToLive", e))?;
        Ok(())
    }

    async fn wait_active(&self) -> Result<(), StoreError> {
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
