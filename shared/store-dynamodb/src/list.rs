//! Lists: `Query`s on the sparse indexes (never `Scan`), pages filled exactly, cursors
//! from the key of the last item returned.

use aws_sdk_dynamodb::types::AttributeValue;
use registry_core::{Definition, Kind};
use registry_store::{ListQuery, Page, StoreError};

use crate::DynamoStore;
use crate::errors;
use crate::expr::Expr;
use crate::item::{self, Item, get_s, s};
use crate::keys::*;

/// One query: where to look and what to keep.
struct Spec {
    /// Index name, `None` for the table itself.
    index: Option<&'static str>,
    /// Attributes of `LastEvaluatedKey` for this index (what a cursor holds).
    key_names: Vec<&'static str>,
    /// Which list a cursor belongs to (index and partition).
    scope: String,
    key_condition: String,
    filter: Option<String>,
    expr: Expr,
}

impl Spec {
    /// A query on `index` for the partition `partition_attr = value`.
    fn index(index: &'static str, partition_attr: &'static str, value: String) -> Self {
        let mut expr = Expr::default();
        let key_condition = expr.eq(partition_attr, s(&value));
        Self {
            index: Some(index),
            key_names: vec![PK, SK, partition_attr, ID],
            scope: format!("{index}\n{value}"),
            key_condition,
            filter: None,
            expr,
        }
    }

    /// A query on the table for the items of partition `pk` whose sort key starts with `prefix`.
    fn table(pk: String, prefix: &str) -> Self {
        let mut expr = Expr::default();
        let key_condition = format!(
            "{} = {} AND begins_with({}, {})",
            expr.name(PK),
            expr.value(s(&pk)),
            expr.name(SK),
            expr.value(s(prefix))
        );
        Self {
            index: None,
            key_names: vec![PK, SK],
            scope: format!("table\n{pk}\n{prefix}"),
            key_condition,
            filter: None,
            expr,
        }
    }

    /// Narrows the key condition to ids starting with `prefix` (every index's sort key is
    /// the id, so this stays a key condition, never a filter or a scan).
    fn id_prefix(&mut self, prefix: &str) {
        let clause = format!("begins_with({}, {})", self.expr.name(ID), self.expr.value(s(prefix)));
        self.key_condition = format!("{} AND {clause}", self.key_condition);
        self.scope = format!("{}\n{prefix}", self.scope);
    }

    /// Adds `attribute = value` to the filter.
    fn filter_eq(&mut self, attribute: &str, value: &str) {
        let clause = self.expr.eq(attribute, s(value));
        self.filter = Some(match self.filter.take() {
            Some(f) => format!("{f} AND {clause}"),
            None => clause,
        });
    }
}

impl DynamoStore {
    /// Runs `spec` until `limit` items (plus one to know whether more exist) or the end.
    async fn query_page(
        &self,
        spec: Spec,
        limit: u32,
        cursor: Option<&str>,
    ) -> Result<(Vec<Item>, Option<String>), StoreError> {
        let limit = usize::try_from(limit.clamp(1, 100)).unwrap_or(100);
        let target = limit + 1;
        let mut start =
            cursor.map(|c| self.cursors.decode(&spec.scope, c, &spec.key_names)).transpose()?;
        let mut items: Vec<Item> = Vec::new();
        loop {
            let mut query = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression(&spec.key_condition)
                .set_expression_attribute_names(spec.expr.names())
                .set_expression_attribute_values(spec.expr.values())
                .set_exclusive_start_key(start.take())
                .set_index_name(spec.index.map(str::to_owned))
                .set_filter_expression(spec.filter.clone());
            if spec.index.is_none() {
                query = query.consistent_read(true);
            }
            if spec.filter.is_none() {
                // Without a filter every evaluated item is returned: read just enough.
                query = query.limit(i32::try_from(target - items.len()).unwrap_or(i32::MAX));
            }
            let out = query.send().await.map_err(|e| errors::sdk("Query", e))?;
            items.extend(out.items.unwrap_or_default());
            if items.len() >= target {
                break;
            }
            match out.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => break,
            }
        }
        let next = if items.len() > limit {
            items.truncate(limit);
            match items.last() {
                Some(last) => Some(self.cursors.encode(&spec.scope, last, &spec.key_names)?),
                None => None,
            }
        } else {
            None
        };
        Ok((items, next))
    }

    /// See [`registry_store::Store::list`].
    pub(crate) async fn list_definitions(
        &self,
        kind: Kind,
        query: &ListQuery,
    ) -> Result<Page<Definition>, StoreError> {
        let filter = &query.filter;
        if kind == Kind::Agent && filter.execution_type.is_some() {
            // Agents have no execution type: nothing matches, and no cursor was ever issued.
            if query.cursor.is_some() {
                return Err(StoreError::InvalidCursor);
            }
            return Ok(Page { items: Vec::new(), next_cursor: None });
        }
        let status = filter.status.map(|s| s.as_str());
        let exec = filter.execution_type.map(|e| e.as_str());
        let created_by = filter.created_by.as_deref();

        if filter.name.is_some() && kind != Kind::Tool {
            return Ok(Page { items: Vec::new(), next_cursor: None });
        }
        let release_prefix = filter.name.as_ref().map(|name| format!("{name}@"));
        if let Some(tag) = &filter.tag {
            // Tag items carry copies of the index fields, so every filter applies here.
            let mut spec = Spec::index(IDX_TAG, G_TAG, g_tag(kind, &tag.key));
            if let Some(prefix) = &release_prefix {
                spec.id_prefix(prefix);
            }
            if let Some(value) = &tag.value {
                spec.filter_eq(TAG_VALUE, value);
            }
            for (attribute, value) in [(STATUS, status), (EXEC, exec), (CREATED_BY, created_by)] {
                if let Some(value) = value {
                    spec.filter_eq(attribute, value);
                }
            }
            let (items, next_cursor) =
                self.query_page(spec, query.limit, query.cursor.as_deref()).await?;
            let ids: Vec<String> =
                items.iter().filter_map(|i| get_s(i, ID)).map(str::to_owned).collect();
            let heads = self.batch_heads(kind, &ids).await?;
            let mut definitions = Vec::with_capacity(ids.len());
            for id in &ids {
                // A head deleted since the tag query is simply left out.
                if let Some(definition) = heads
                    .get(id)
                    .map(|h| item::definition_of(&self.decoded, kind, h))
                    .transpose()?
                    .flatten()
                {
                    definitions.push(definition);
                }
            }
            return Ok(Page { items: definitions, next_cursor });
        }

        let mut spec = if let Some(exec) = exec {
            let mut spec = Spec::index(IDX_EXEC, G_EXEC, g_value(kind, exec));
            if let Some(c) = created_by {
                spec.filter_eq(CREATED_BY, c);
            }
            spec
        } else if let Some(c) = created_by {
            let mut spec = Spec::index(IDX_CREATED_BY, G_CREATED_BY, g_created_by(kind, c));
            // The partition is a hash of the principal; compare the real value too.
            spec.filter_eq(CREATED_BY, c);
            spec
        } else if let Some(st) = status {
            let mut spec = Spec::index(IDX_STATUS, G_STATUS, g_value(kind, st));
            if let Some(prefix) = &release_prefix {
                spec.id_prefix(prefix);
            }
            return self.list_heads(kind, spec, query).await;
        } else {
            Spec::index(IDX_KIND, G_KIND, kind.as_str().to_owned())
        };
        if let Some(st) = status {
            spec.filter_eq(STATUS, st);
        }
        if let Some(prefix) = &release_prefix {
            spec.id_prefix(prefix);
        }
        self.list_heads(kind, spec, query).await
    }

    async fn list_heads(
        &self,
        kind: Kind,
        spec: Spec,
        query: &ListQuery,
    ) -> Result<Page<Definition>, StoreError> {
        let (items, next_cursor) =
            self.query_page(spec, query.limit, query.cursor.as_deref()).await?;
        let items = items
            .iter()
            .map(|i| item::definition_of(&self.decoded, kind, i))
            .filter_map(Result::transpose)
            .collect::<Result<_, _>>()?;
        Ok(Page { items, next_cursor })
    }

    /// See [`registry_store::Store::versions`]: a consistent `Query` of the snapshots.
    pub(crate) async fn list_versions(
        &self,
        kind: Kind,
        id: &str,
        query: &ListQuery,
    ) -> Result<Page<Definition>, StoreError> {
        self.list_heads(kind, Spec::table(pk(kind, id), VERSION_PREFIX), query).await
    }

    /// See [`registry_store::Store::referrers`]: a consistent `Query` of the tool's
    /// reference items, every page.
    pub(crate) async fn referrers_of(&self, tool_id: &str) -> Result<Vec<String>, StoreError> {
        let mut agents = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let mut expr = Expr::default();
            let key_condition = format!(
                "{} = {} AND begins_with({}, {})",
                expr.name(PK),
                expr.value(s(pk(Kind::Tool, tool_id))),
                expr.name(SK),
                expr.value(AttributeValue::S(REF_PREFIX.to_owned()))
            );
            let out = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression(key_condition)
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .set_exclusive_start_key(start.take())
                .consistent_read(true)
                .send()
                .await
                .map_err(|e| errors::sdk("Query", e))?;
            agents.extend(out.items().iter().filter_map(|i| get_s(i, AGENT_ID)).map(str::to_owned));
            match out.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => break,
            }
        }
        agents.sort();
        Ok(agents)
    }
}
