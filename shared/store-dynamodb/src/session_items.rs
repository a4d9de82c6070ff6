//! Counter records (session budgets, rate windows) as items `COUNTER#<key>` /
//! `COUNTER`, with `expiresAt` as the table's TTL attribute: read consistently,
//! written with a condition on the version read (several in one transaction).

use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{Put, TransactWriteItem};
use registry_store::{Counter, StoreError};

use crate::DynamoStore;
use crate::errors;
use crate::expr::Expr;
use crate::item::{self, Item, get_n, get_s, n, s};
use crate::keys::{DOC, PK, VERSION};

/// Sort key of a counter item.
const COUNTER_SK: &str = "COUNTER";
/// When a counter item expires (Unix seconds): the table's TTL attribute.
pub const EXPIRES_AT: &str = "expiresAt";

fn counter_pk(key: &str) -> String {
    format!("COUNTER#{key}")
}

/// The item of `counter`, and the condition it is written under.
fn conditional(counter: &Counter, now: i64) -> Result<(Item, String, Expr), StoreError> {
    let mut item = item::key(counter_pk(&counter.key), COUNTER_SK);
    item.insert(VERSION.into(), n(counter.version));
    item.insert(DOC.into(), s(counter.value.to_string()));
    item.insert(EXPIRES_AT.into(), n(counter.expires_at));
    let mut expr = Expr::default();
    let condition = match counter.expected() {
        0 => format!(
            "attribute_not_exists({}) OR {} <= {}",
            expr.name(PK),
            expr.name(EXPIRES_AT),
            expr.value(n(now))
        ),
        version => format!(
            "{} = {} AND {} > {}",
            expr.name(VERSION),
            expr.value(n(version)),
            expr.name(EXPIRES_AT),
            expr.value(n(now))
        ),
    };
    Ok((item, condition, expr))
}

fn mismatch(counter: &Counter) -> StoreError {
    StoreError::VersionMismatch { expected: counter.expected(), current: None }
}

impl DynamoStore {
    /// See [`registry_store::Store::get_counters`]: one consistent `GetItem` each.
    pub(crate) async fn read_counters(
        &self,
        keys: &[String],
        now: i64,
    ) -> Result<Vec<Option<Counter>>, StoreError> {
        let mut out = Vec::with_capacity(keys.len());
        for key in keys {
            let found = self
                .client
                .get_item()
                .table_name(&self.table)
                .set_key(Some(item::key(counter_pk(key), COUNTER_SK)))
                .consistent_read(true)
                .send()
                .await
                .map_err(|e| errors::sdk("GetItem", e))?;
            let counter = match found.item {
                Some(item) if get_n(&item, EXPIRES_AT).is_some_and(|t| t > now) => {
                    let value =
                        get_s(&item, DOC).and_then(|d| serde_json::from_str(d).ok()).ok_or_else(
                            || StoreError::Backend(format!("counter `{key}` is corrupt")),
                        )?;
                    Some(Counter {
                        key: key.clone(),
                        version: get_n(&item, VERSION)
                            .and_then(|v| u64::try_from(v).ok())
                            .unwrap_or(0),
                        value,
                        expires_at: get_n(&item, EXPIRES_AT).unwrap_or(0),
                    })
                }
                _ => None,
            };
            out.push(counter);
        }
        Ok(out)
    }

    /// See [`registry_store::Store::put_counters`]: a conditional `PutItem` for one
    /// counter, a `TransactWriteItems` of conditional puts for several.
    pub(crate) async fn write_counters(
        &self,
        writes: &[Counter],
        now: i64,
    ) -> Result<(), StoreError> {
        match writes {
            [] => Ok(()),
            [one] => {
                let (item, condition, expr) = conditional(one, now)?;
                let sent = self
                    .client
                    .put_item()
                    .table_name(&self.table)
                    .set_item(Some(item))
                    .condition_expression(condition)
                    .set_expression_attribute_names(expr.names())
                    .set_expression_attribute_values(expr.values())
                    .send()
                    .await;
                match sent {
                    Ok(_) => Ok(()),
                    Err(e)
                        if matches!(
                            e.as_service_error(),
                            Some(PutItemError::ConditionalCheckFailedException(_))
                        ) =>
                    {
                        Err(mismatch(one))
                    }
                    Err(e) => Err(errors::sdk("PutItem", e)),
                }
            }
            many => {
                let mut items = Vec::with_capacity(many.len());
                for counter in many {
                    let (item, condition, expr) = conditional(counter, now)?;
                    let put = Put::builder()
                        .table_name(&self.table)
                        .set_item(Some(item))
                        .condition_expression(condition)
                        .set_expression_attribute_names(expr.names())
                        .set_expression_attribute_values(expr.values())
                        .build()
                        .map_err(|e| StoreError::Backend(format!("counter write: {e}")))?;
                    items.push(TransactWriteItem::builder().put(put).build());
                }
                let sent =
                    self.client.transact_write_items().set_transact_items(Some(items)).send().await;
                match sent {
                    Ok(_) => Ok(()),
                    Err(e) => match e.as_service_error() {
                        Some(TransactWriteItemsError::TransactionCanceledException(cancelled))
                            if cancelled.cancellation_reasons().iter().any(|r| {
                                matches!(
                                    r.code(),
                                    Some("ConditionalCheckFailed" | "TransactionConflict")
                                )
                            }) =>
                        {
                            Err(mismatch(&many[0]))
                        }
                        _ => Err(errors::sdk("TransactWriteItems", e)),
                    },
                }
            }
        }
    }
}
