//! Local bearer-token authentication from `<data-dir>/auth.json`, which holds only
//! SHA-256 hashes of tokens, each with a principal name and a role.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{AuthError, Authenticator, Principal, Role, canonical_name, name_key};

/// File name of the token file inside the data directory.
pub const TOKEN_FILE_NAME: &str = "auth.json";

/// Principal name of the admin token created on first run (or set by the environment).
pub const ADMIN_NAME: &str = "admin";

/// Why the token file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum TokenFileError {
    /// Reading or writing the file failed.
    #[error("token file {path}: {source}")]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is not valid JSON of the expected shape.
    #[error("token file {path} is malformed: {source}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The parse error.
        source: serde_json::Error,
    },
    /// A token value or principal name that cannot be used.
    #[error("{0}")]
    Invalid(String),
}

/// One entry of the token file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TokenEntry {
    /// Principal name.
    name: String,
    /// Role of the principal.
    role: Role,
    /// Lower-case hex SHA-256 of the token.
    sha256: String,
}

/// The token file on disk: `{"tokens": [{"name", "role", "sha256"}]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenFile {
    tokens: Vec<TokenEntry>,
}

impl TokenFile {
    /// Loads `<data_dir>/auth.json`, creating the directory and the file on first run.
    /// `admin_token` (from `REGISTRY_ADMIN_TOKEN`) sets the admin token
    /// explicitly. When the file is new and no admin token is given, a random admin
    /// token is created and returned in plaintext, to be printed once.
    pub fn load_or_init(
        data_dir: &Path,
        admin_token: Option<String>,
    ) -> Result<(TokenAuth, Option<String>), TokenFileError> {
        registry_store::create_private_dir(data_dir)
            .map_err(|source| TokenFileError::Io { path: data_dir.to_path_buf(), source })?;
        let path = data_dir.join(TOKEN_FILE_NAME);
        let existing = Self::read(&path)?;
        let mut file = existing.clone().unwrap_or_default();
        let mut created = None;
        match admin_token.filter(|t| !t.trim().is_empty()) {
            Some(token) => {
                check_token(&token)?;
                file.tokens.retain(|e| e.name != ADMIN_NAME);
                file.tokens.push(TokenEntry {
                    name: ADMIN_NAME.to_owned(),
                    role: Role::Admin,
                    sha256: hash_token(&token),
                });
            }
            None if existing.is_none() => {
                let token = generate_token();
                file.tokens.push(TokenEntry {
                    name: ADMIN_NAME.to_owned(),
                    role: Role::Admin,
                    sha256: hash_token(&token),
                });
                created = Some(token);
            }
            None => {}
        }
        if existing.as_ref() != Some(&file) {
            file.write(&path)?;
        }
        Ok((file.auth(), created))
    }

    /// Adds a new random token for principal `name` with `role` to
    /// `<data_dir>/auth.json` and returns the plaintext token (shown once; only its hash
    /// is stored). The name is stored in its [`canonical_name`] form; one that is empty
    /// there, or only looks like an existing name (same [`name_key`], another spelling),
    /// is refused. The same name again is another token of the same principal. A
    /// running server picks it up on restart.
    pub fn add_token(data_dir: &Path, name: &str, role: Role) -> Result<String, TokenFileError> {
        let name = canonical_name(name);
        if name.is_empty() || name.len() > 128 || name.chars().any(char::is_control) {
            return Err(TokenFileError::Invalid(
                "principal name must be 1..128 printable characters, not only spaces or \
                 invisible ones"
                    .into(),
            ));
        }
        registry_store::create_private_dir(data_dir)
            .map_err(|source| TokenFileError::Io { path: data_dir.to_path_buf(), source })?;
        let path = data_dir.join(TOKEN_FILE_NAME);
        let mut file = Self::read(&path)?.unwrap_or_default();
        let key = name_key(&name);
        if let Some(existing) =
            file.tokens.iter().find(|e| e.name != name && name_key(&e.name) == key)
        {
            return Err(TokenFileError::Invalid(format!(
                "principal name `{name}` differs from the existing `{}` only by case, spacing or \
                 invisible characters; use `{}` for the same principal, or a distinct name",
                existing.name, existing.name
            )));
        }
        let token = generate_token();
        file.tokens.push(TokenEntry { name, role, sha256: hash_token(&token) });
        file.write(&path)?;
        Ok(token)
    }

    /// The authenticator for the tokens in this file.
    pub fn auth(&self) -> TokenAuth {
        let by_hash = self
            .tokens
            .iter()
            .filter_map(|e| {
                Some((digest_from_hex(&e.sha256)?, Principal::new(e.name.clone(), e.role)))
            })
            .collect();
        TokenAuth { by_hash }
    }

    fn read(path: &Path) -> Result<Option<Self>, TokenFileError> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|source| TokenFileError::Malformed { path: path.to_path_buf(), source }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(TokenFileError::Io { path: path.to_path_buf(), source }),
        }
    }

    /// Writes the file atomically (temp file + rename), readable by the owner only.
    fn write(&self, path: &Path) -> Result<(), TokenFileError> {
        let mut json = serde_json::to_vec_pretty(self)
            .map_err(|source| TokenFileError::Malformed { path: path.to_path_buf(), source })?;
        json.push(b'\n');
        registry_store::write_private_file(path, &json)
            .map_err(|source| TokenFileError::Io { path: path.to_path_buf(), source })
    }
}

/// Authenticates `Authorization: Bearer <token>` against a set of token hashes.
#[derive(Debug, Clone, Default)]
pub struct TokenAuth {
    by_hash: HashMap<[u8; 32], Principal>,
}

impl TokenAuth {
    /// The principal holding `token`, if any.
    pub fn principal_for(&self, token: &str) -> Option<&Principal> {
        self.by_hash.get(&<[u8; 32]>::from(Sha256::digest(token.as_bytes())))
    }
}

impl Authenticator for TokenAuth {
    fn authenticate(&self, parts: &http::request::Parts) -> Result<Principal, AuthError> {
        let header = parts.headers.get(http::header::AUTHORIZATION).ok_or(AuthError::Missing)?;
        let value = header.to_str().map_err(|_| AuthError::Invalid)?;
        let (scheme, token) = value.trim().split_once(' ').ok_or(AuthError::Invalid)?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(AuthError::Invalid);
        }
        self.principal_for(token.trim()).cloned().ok_or(AuthError::Invalid)
    }
}

/// Lower-case hex SHA-256 of a token, as the token file stores it.
fn hash_token(token: &str) -> String {
    Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The 32 bytes of a hex SHA-256 (either case); `None` for anything else, so a damaged
/// entry matches no token. Requests compare raw digests: no hex per request.
fn digest_from_hex(hex: &str) -> Option<[u8; 32]> {
    let bytes = hex.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks(2).enumerate() {
        let text = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(text, 16).ok()?;
    }
    Some(out)
}

/// A new random token: `ar_` and 64 hex characters (256 bits).
fn generate_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("ar_{hex}")
}

/// Rejects token values that cannot travel in an `Authorization` header.
fn check_token(token: &str) -> Result<(), TokenFileError> {
    if token.len() < 16 || !token.chars().all(|c| c.is_ascii_graphic()) {
        return Err(TokenFileError::Invalid(
            "admin token must be at least 16 printable ASCII characters without spaces".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(auth: Option<&str>) -> http::request::Parts {
        let mut builder = http::Request::builder();
        if let Some(a) = auth {
            builder = builder.header("authorization", a);
        }
        builder.body(()).unwrap().into_parts().0
    }

    #[test]
    fn first_run_creates_an_admin_token_and_stores_only_its_hash() {
        let dir = tempfile::tempdir().unwrap();
        let (auth, token) = TokenFile::load_or_init(dir.path(), None).unwrap();
        let token = token.unwrap();
        let text = std::fs::read_to_string(dir.path().join(TOKEN_FILE_NAME)).unwrap();
        assert!(!text.contains(&token));
        let p = auth.authenticate(&parts(Some(&format!("Bearer {token}")))).unwrap();
        assert_eq!(p, Principal::new(ADMIN_NAME, Role::Admin));
        // Second run: same file, no new token.
        let (auth2, again) = TokenFile::load_or_init(dir.path(), None).unwrap();
        assert!(again.is_none());
        assert!(auth2.principal_for(&token).is_some());
    }

    #[test]
    fn env_token_replaces_the_admin_token() {
        let dir = tempfile::tempdir().unwrap();
        let (_, first) = TokenFile::load_or_init(dir.path(), None).unwrap();
        let (auth, none) =
            TokenFile::load_or_init(dir.path(), Some("explicit-admin-token-1".into())).unwrap();
        assert!(none.is_none());
        assert!(auth.principal_for("explicit-admin-token-1").is_some());
        assert!(auth.principal_for(&first.unwrap()).is_none());
    }

    #[test]
    fn added_tokens_carry_their_role_and_bad_headers_fail() {
        let dir = tempfile::tempdir().unwrap();
        TokenFile::load_or_init(dir.path(), None).unwrap();
        let reader = TokenFile::add_token(dir.path(), "ci", Role::Reader).unwrap();
        let (auth, _) = TokenFile::load_or_init(dir.path(), None).unwrap();
        let p = auth.authenticate(&parts(Some(&format!("bearer {reader}")))).unwrap();
        assert_eq!(p.role, Role::Reader);
        assert_eq!(auth.authenticate(&parts(None)), Err(AuthError::Missing));
        assert_eq!(auth.authenticate(&parts(Some("Bearer nope"))), Err(AuthError::Invalid));
        assert_eq!(
            auth.authenticate(&parts(Some(&format!("Basic {reader}")))),
            Err(AuthError::Invalid)
        );
        assert!(Role::Admin > Role::Editor && Role::Editor > Role::Reader);
    }

    #[test]
    fn names_are_stored_canonical_and_look_alikes_refused() {
        let dir = tempfile::tempdir().unwrap();
        TokenFile::load_or_init(dir.path(), None).unwrap();
        let first = TokenFile::add_token(dir.path(), " ed\u{200b} ", Role::Editor).unwrap();
        let (auth, _) = TokenFile::load_or_init(dir.path(), None).unwrap();
        assert_eq!(auth.principal_for(&first).map(|p| p.name.as_str()), Some("ed"));
        // The same name again: another token of the same principal.
        TokenFile::add_token(dir.path(), "ed", Role::Approver).unwrap();
        let before = std::fs::read(dir.path().join(TOKEN_FILE_NAME)).unwrap();
        for look_alike in ["Ed", "ED ", "\u{200b}eD", "ｅＤ", "ADMIN"] {
            let err = TokenFile::add_token(dir.path(), look_alike, Role::Approver).unwrap_err();
            assert!(err.to_string().contains("differs from the existing"), "{look_alike:?}: {err}");
        }
        for empty in ["", "  ", "\u{200b}", "\u{200d}\u{fe0f} "] {
            let err = TokenFile::add_token(dir.path(), empty, Role::Approver).unwrap_err();
            assert!(err.to_string().contains("not only spaces or invisible"), "{empty:?}: {err}");
        }
        let after = std::fs::read(dir.path().join(TOKEN_FILE_NAME)).unwrap();
        assert_eq!(before, after, "a refused name changes nothing");
    }

    #[test]
    fn stored_hex_digests_match_raw_digests() {
        let hex = hash_token("some-token-value-123");
        let raw: [u8; 32] = Sha256::digest(b"some-token-value-123").into();
        assert_eq!(digest_from_hex(&hex), Some(raw));
        assert_eq!(digest_from_hex(&hex.to_ascii_uppercase()), Some(raw));
        for bad in ["", "zz", &hex[1..], &format!("{hex}0"), &hex.replace(&hex[..2], "g0")] {
            assert_eq!(digest_from_hex(bad), None, "{bad}");
        }
    }

    #[test]
    fn short_env_token_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(TokenFile::load_or_init(dir.path(), Some("short".into())).is_err());
    }
}
