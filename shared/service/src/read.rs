//! Reads: get, list, version history, one version. Every result is redacted.

use std::sync::Arc;

use bytes::Bytes;
use registry_core::Definition;
use registry_store::{ListQuery, Page};

use crate::{Catalog, Resource, ServiceError, encoded};

/// Largest page a list may ask for.
pub const MAX_LIMIT: u32 = 100;

/// Most releases of one tool name a `name` list returns.
pub use registry_policy::MAX_RELEASES;

impl Catalog {
    /// The live definition `id` (secrets removed).
    pub async fn get<R: Resource>(&self, id: &str) -> Result<R, ServiceError> {
        let id = &R::canonical_id(id);
        self.stored::<R>(id)
            .await?
            .and_then(|d| R::from_definition(Arc::unwrap_or_clone(d)))
            .map(R::redact)
            .ok_or_else(|| ServiceError::NotFound { kind: R::KIND, id: id.to_owned() })
    }

    /// The live definition `id` as response JSON (secrets removed), with its version:
    /// each version is serialized once and its bytes reused.
    pub async fn get_json<R: Resource>(&self, id: &str) -> Result<(u64, Bytes), ServiceError> {
        let id = &R::canonical_id(id);
        let found = self
            .store()
            .get_shared(R::KIND, id)
            .await
            .map_err(|e| ServiceError::from_store(R::KIND, id, e))?;
        let definition = found
            .filter(|d| d.kind() == R::KIND)
            .ok_or_else(|| ServiceError::NotFound { kind: R::KIND, id: id.to_owned() })?;
        Ok((definition.version(), self.encoded.json(&definition)?))
    }

    /// One page of live definitions ordered by id, filtered (secrets removed).
    pub async fn list<R: Resource>(&self, query: &ListQuery) -> Result<Page<R>, ServiceError> {
        convert(self.page::<R>(query).await?)
    }

    /// [`Catalog::list`] as the response JSON of the page (`items`, `nextCursor`):
    /// each version is serialized once and its bytes reused.
    pub async fn list_json<R: Resource>(&self, query: &ListQuery) -> Result<Bytes, ServiceError> {
        let page = self.page::<R>(query).await?;
        let items = page
            .items
            .iter()
            .map(|d| match d.kind() == R::KIND {
                true => self.encoded.json(d),
                false => Err(wrong_kind()),
            })
            .collect::<Result<Vec<Bytes>, _>>()?;
        encoded::page(&items, page.next_cursor.as_deref())
    }

    /// One page of live definitions as the store shares them (not yet redacted).
    async fn page<R: Resource>(
        &self,
        query: &ListQuery,
    ) -> Result<Page<Arc<Definition>>, ServiceError> {
        check_limit(query.limit)?;
        if query.filter.name.is_some() {
            return self.releases::<R>(query).await;
        }
        self.store()
            .list_shared(R::KIND, query)
            .await
            .map_err(|e| ServiceError::from_store(R::KIND, "", e))
    }

    /// Every live release of the tool `query.filter.name` (with the other filters), in
    /// ascending semantic order, in one page: the store pages by id, so every page is
    /// read (at most [`MAX_RELEASES`]) and sorted here.
    async fn releases<R: Resource>(
        &self,
        query: &ListQuery,
    ) -> Result<Page<Arc<Definition>>, ServiceError> {
        let mut all = Vec::new();
        let mut query = ListQuery { limit: 100, cursor: None, filter: query.filter.clone() };
        loop {
            let page = self
                .store()
                .list_shared(R::KIND, &query)
                .await
                .map_err(|e| ServiceError::from_store(R::KIND, "", e))?;
            all.extend(page.items);
            match page.next_cursor {
                Some(next) if all.len() < MAX_RELEASES => query.cursor = Some(next),
                _ => break,
            }
        }
        all.sort_by(|a, b| registry_core::release_order(a.id(), b.id()));
        Ok(Page { items: all, next_cursor: None })
    }

    /// One page of the version snapshots of `id`, oldest first (secrets removed).
    /// History stays readable after a delete; an id that never existed is not found.
    pub async fn versions<R: Resource>(
        &self,
        id: &str,
        query: &ListQuery,
    ) -> Result<Page<R>, ServiceError> {
        let id = &R::canonical_id(id);
        check_limit(query.limit)?;
        let page = self
            .store()
            .versions(R::KIND, id, query)
            .await
            .map_err(|e| ServiceError::from_store(R::KIND, id, e))?;
        if page.items.is_empty() && query.cursor.is_none() {
            return Err(ServiceError::NotFound { kind: R::KIND, id: id.to_owned() });
        }
        let items = page.items.into_iter().map(Arc::new).collect();
        convert(Page { items, next_cursor: page.next_cursor })
    }

    /// The immutable snapshot `version` of `id` (secrets removed).
    pub async fn version<R: Resource>(&self, id: &str, version: u64) -> Result<R, ServiceError> {
        let id = &R::canonical_id(id);
        let found = self
            .store()
            .version(R::KIND, id, version)
            .await
            .map_err(|e| ServiceError::from_store(R::KIND, id, e))?;
        let not_found = || ServiceError::NotFound { kind: R::KIND, id: format!("{id}@{version}") };
        let definition = found.ok_or_else(not_found)?;
        R::from_definition(definition).map(R::redact).ok_or_else(not_found)
    }

    /// The stored head of `id` with secrets, as the store shares it (borrow it with
    /// [`Resource::from_ref`], which also checks the kind), for the write path only.
    pub(crate) async fn stored<R: Resource>(
        &self,
        id: &str,
    ) -> Result<Option<Arc<Definition>>, ServiceError> {
        self.store()
            .get_shared(R::KIND, id)
            .await
            .map_err(|e| ServiceError::from_store(R::KIND, id, e))
    }
}

fn check_limit(limit: u32) -> Result<(), ServiceError> {
    if (1..=MAX_LIMIT).contains(&limit) {
        Ok(())
    } else {
        Err(ServiceError::invalid("/limit", format!("limit must be between 1 and {MAX_LIMIT}")))
    }
}

fn wrong_kind() -> ServiceError {
    ServiceError::Internal("store returned the wrong kind".into())
}

fn convert<R: Resource>(page: Page<Arc<Definition>>) -> Result<Page<R>, ServiceError> {
    let items = page
        .items
        .into_iter()
        .map(|d| R::from_definition(Arc::unwrap_or_clone(d)).map(R::redact).ok_or_else(wrong_kind))
        .collect::<Result<Vec<R>, _>>()?;
    Ok(Page { items, next_cursor: page.next_cursor })
}
