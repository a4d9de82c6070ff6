//! A tool's client secret on its way to the vault: taken out of the definition before it
//! is stored (which keeps only the vault's version marker), and the vault trimmed to what
//! the stored definition names once the write is done. A proposal's secret is written
//! when the proposal opens (it names the version); it is trimmed like a write's when the
//! proposal applies, and removed when it closes otherwise (rejected, cancelled, stale)
//! or is never saved, unless the served definition names the same version.

use registry_core::{Definition, Kind, McpAuth, ToolDefinition};
use registry_store::Proposal;

use crate::vault::{SecretHandle, VaultError};
use crate::{Catalog, DefinitionRef, Resource, ServiceError};

/// The vault version an `auth` block names, if any.
pub(crate) fn handle_of(auth: &McpAuth) -> Option<SecretHandle> {
    auth.secret_version
        .as_ref()
        .map(|version| SecretHandle { version: version.clone(), arn: auth.secret_arn.clone() })
}

/// The vault version a stored definition names (agents: none).
fn stored_handle<R: Resource>(definition: Option<&R>) -> Option<SecretHandle> {
    match definition?.view() {
        DefinitionRef::Tool(ToolDefinition { auth: Some(auth), .. }) => handle_of(auth),
        _ => None,
    }
}

/// The vault version a definition of either kind names (agents: none).
pub(crate) fn secret_in(definition: &Definition) -> Option<SecretHandle> {
    match definition {
        Definition::Tool(ToolDefinition { auth: Some(auth), .. }) => handle_of(auth),
        _ => None,
    }
}

/// A vault failure: 503 (the store's own failures are too), with no value in it.
pub(crate) fn vault_error(e: VaultError) -> ServiceError {
    tracing::warn!(error = %e, "secret vault");
    ServiceError::Unavailable(e.to_string())
}

impl Catalog {
    /// Moves a client secret given in `definition` into the vault and leaves its marker
    /// (`auth.secretVersion`, `auth.secretArn`) in its place. The same value as the
    /// stored version keeps that version, so an identical PUT stays unchanged. Returns
    /// the new version written, if any.
    pub(crate) async fn seal_secret<R: Resource>(
        &self,
        definition: &mut R,
        head: Option<&R>,
    ) -> Result<Option<SecretHandle>, ServiceError> {
        let id = definition.id().to_owned();
        let Some(auth) = definition.auth_mut() else { return Ok(None) };
        if let Some(arn) = &auth.client_secret_ref
            && self.vault().owns(arn)
        {
            return Err(ServiceError::invalid(
                "/auth/clientSecretRef",
                "names a secret the registry keeps for its tools; a reference names a secret \
                 you keep (send clientSecret to have the registry keep it)",
            ));
        }
        let Some(value) = auth.client_secret.take() else { return Ok(None) };
        if let Some(old) = stored_handle(head)
            && self.vault().get(&id, &old).await.map_err(vault_error)?.is_some_and(|v| v == value)
        {
            mark(auth, &old);
            return Ok(None);
        }
        let handle = self.vault().put(&id, &value).await.map_err(vault_error)?;
        mark(auth, &handle);
        Ok(Some(handle))
    }

    /// After a write of `id`: the vault keeps only the version `stored` names (none
    /// when it names none, or is deleted), and the version `replaced` named, if another,
    /// is removed. A failure here is logged: the write is done, and the next write of
    /// the tool trims again.
    pub(crate) async fn trim_secrets<R: Resource>(
        &self,
        id: &str,
        replaced: Option<&SecretHandle>,
        stored: Option<&R>,
    ) {
        self.trim_vault(R::KIND, id, replaced, stored_handle(stored)).await;
    }

    /// [`Catalog::trim_secrets`] of a definition of `kind` whose stored version names
    /// `keep`.
    pub(crate) async fn trim_vault(
        &self,
        kind: Kind,
        id: &str,
        replaced: Option<&SecretHandle>,
        keep: Option<SecretHandle>,
    ) {
        if kind != Kind::Tool {
            return;
        }
        let mut result = self.vault().retain(id, keep.as_ref()).await;
        if let Some(old) = replaced.filter(|old| Some(*old) != keep.as_ref())
            && result.is_ok()
        {
            result = self.vault().remove(id, old).await;
        }
        if let Err(e) = result {
            tracing::warn!(tool = id, error = %e, "old secret versions not removed yet");
        }
    }

    /// The vault version a stored definition names (agents: none).
    pub(crate) fn secret_of<R: Resource>(definition: Option<&R>) -> Option<SecretHandle> {
        stored_handle(definition)
    }

    /// Removes `handle`, a version of `id`'s secret that nothing stored names (a write
    /// or proposal that failed). A failure is logged, as in [`Catalog::trim_secrets`].
    pub(crate) async fn discard_secret(&self, id: &str, handle: &SecretHandle) {
        if let Err(e) = self.vault().remove(id, handle).await {
            tracing::warn!(tool = id, error = %e, "unused secret version not removed yet");
        }
    }

    /// After `proposal` closed without applying: removes the secret version it brought,
    /// unless the served definition names that version (the proposal kept the served
    /// secret). When the served definition cannot be read, the version stays (logged):
    /// never remove what may be served.
    pub(crate) async fn drop_proposal_secret(&self, proposal: &Proposal) {
        let Ok(proposed) = proposal.proposed() else { return };
        let Some(brought) = secret_in(&proposed) else { return };
        let id = &proposal.definition_id;
        match self.store().get_shared(proposal.kind, id).await {
            Ok(served) if served.as_deref().and_then(secret_in).as_ref() != Some(&brought) => {
                self.discard_secret(id, &brought).await;
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(tool = %id, error = %e, "a closed proposal's secret not removed yet");
            }
        }
    }
}

/// Records `handle` as the secret of `auth`.
fn mark(auth: &mut McpAuth, handle: &SecretHandle) {
    auth.secret_version = Some(handle.version.clone());
    auth.secret_arn.clone_from(&handle.arn);
}
