//! A small W3C WebDriver client over `reqwest` (already in the workspace), for the
//! console's browser tests: headless Chromium through Debian's `chromedriver`.
//!
//! It covers what the tests use: sessions, navigation, finding elements by CSS
//! selector, clicking, typing, reading text and properties, cookies, alerts, scripts
//! and screenshots. Finding waits on the driver's side (the implicit-wait timeout), so
//! the tests never sleep to synchronise.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The W3C key of an element reference in WebDriver JSON.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// How long finding an element may wait for it to appear.
pub const IMPLICIT_WAIT: Duration = Duration::from_secs(10);
/// How long a click may take to lead to a new page.
pub const NAVIGATION_TIMEOUT: Duration = Duration::from_secs(30);

/// Where Chromium and its driver are: `CHROMEDRIVER`/`CHROMIUM`, else on `PATH`.
#[derive(Debug, Clone)]
pub struct Browser {
    /// The `chromedriver` executable.
    pub driver: PathBuf,
    /// The Chromium executable, when found (the driver looks for it otherwise).
    pub chromium: Option<PathBuf>,
}

impl Browser {
    /// The installed browser, or `None` when `chromedriver` is absent.
    pub fn find() -> Option<Self> {
        let driver = std::env::var_os("CHROMEDRIVER")
            .map(PathBuf::from)
            .or_else(|| on_path("chromedriver"))?;
        let chromium = std::env::var_os("CHROMIUM")
            .map(PathBuf::from)
            .or_else(|| on_path("chromium"))
            .or_else(|| on_path("chromium-browser"));
        Some(Self { driver, chromium })
    }
}

/// The first `name` on `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| p.is_file())
}

/// A WebDriver error: the driver's `error` code and message, or a transport failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebDriverError {
    /// The W3C error code (`no such element`, `no such alert`, ...) or `transport`.
    pub error: String,
    /// The driver's message.
    pub message: String,
}

impl std::fmt::Display for WebDriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.error, self.message)
    }
}

/// A result of a WebDriver command.
pub type WdResult<T> = Result<T, WebDriverError>;

/// A running `chromedriver` with one headless browser session; both end on drop.
pub struct Driver {
    child: Child,
    http: reqwest::Client,
    base: String,
    session: String,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver").field("base", &self.base).finish_non_exhaustive()
    }
}

/// An element found on the page.
#[derive(Debug, Clone)]
pub struct Element {
    id: String,
}

impl Driver {
    /// Starts `chromedriver` on a free loopback port and a headless Chromium session
    /// with a 1280x800 window.
    pub async fn start(browser: &Browser) -> WdResult<Self> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(transport)?;
        let child = Command::new(&browser.driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(transport)?;
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .map_err(transport)?;
        let mut driver =
            Self { child, http, base: format!("http://127.0.0.1:{port}"), session: String::new() };
        driver.wait_ready().await?;
        let mut options = json!({"args": [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--window-size=1280,800", "--no-first-run", "--disable-extensions",
        ]});
        if let Some(binary) = &browser.chromium {
            options["binary"] = json!(binary);
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": options,
            "timeouts": {"implicit": u64::try_from(IMPLICIT_WAIT.as_millis()).unwrap_or(5000)},
        }}});
        let created = driver.command(reqwest::Method::POST, "/session", Some(caps)).await?;
        driver.session = created["sessionId"].as_str().unwrap_or_default().to_owned();
        Ok(driver)
    }

    /// Polls `GET /status` until the driver accepts sessions.
    async fn wait_ready(&self) -> WdResult<()> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(r) = self.http.get(format!("{}/status", self.base)).send().await
                && let Ok(v) = r.json::<Value>().await
                && v["value"]["ready"] == json!(true)
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(WebDriverError {
                    error: "transport".into(),
                    message: "chromedriver did not become ready in 30 s".into(),
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Sends one command; the response's `value`, or its error.
    async fn command(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> WdResult<Value> {
        let mut request = self.http.request(method.clone(), format!("{}{path}", self.base));
        if method == reqwest::Method::POST {
            request = request.json(&body.unwrap_or_else(|| json!({})));
        }
        let response = request.send().await.map_err(transport)?;
        let ok = response.status().is_success();
        let value: Value = response.json().await.map_err(transport)?;
        let value = value.get("value").cloned().unwrap_or(Value::Null);
        if ok {
            Ok(value)
        } else {
            Err(WebDriverError {
                error: value["error"].as_str().unwrap_or("unknown error").to_owned(),
                message: value["message"].as_str().unwrap_or_default().to_owned(),
            })
        }
    }

    /// A command on this session.
    async fn session_command(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> WdResult<Value> {
        self.command(method, &format!("/session/{}{path}", self.session), body).await
    }

    /// Opens `url` and waits for it to load.
    pub async fn goto(&self, url: &str) -> WdResult<()> {
        self.session_command(reqwest::Method::POST, "/url", Some(json!({"url": url}))).await?;
        Ok(())
    }

    /// The current URL.
    pub async fn url(&self) -> WdResult<String> {
        let v = self.session_command(reqwest::Method::GET, "/url", None).await?;
        Ok(v.as_str().unwrap_or_default().to_owned())
    }

    /// The page's HTML as the browser holds it now.
    pub async fn source(&self) -> WdResult<String> {
        let v = self.session_command(reqwest::Method::GET, "/source", None).await?;
        Ok(v.as_str().unwrap_or_default().to_owned())
    }

    /// The first element matching the CSS `selector` (waiting up to the implicit wait).
    pub async fn find(&self, selector: &str) -> WdResult<Element> {
        let body = json!({"using": "css selector", "value": selector});
        let v = self.session_command(reqwest::Method::POST, "/element", Some(body)).await?;
        Ok(Element { id: v[ELEMENT_KEY].as_str().unwrap_or_default().to_owned() })
    }

    /// Every element matching `selector` now (no waiting: the implicit wait is lifted
    /// for this call, so "none" answers at once).
    pub async fn find_all_now(&self, selector: &str) -> WdResult<Vec<Element>> {
        self.set_implicit_wait(Duration::ZERO).await?;
        let body = json!({"using": "css selector", "value": selector});
        let found = self.session_command(reqwest::Method::POST, "/elements", Some(body)).await;
        self.set_implicit_wait(IMPLICIT_WAIT).await?;
        Ok(found?
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .map(|e| Element { id: e[ELEMENT_KEY].as_str().unwrap_or_default().to_owned() })
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn set_implicit_wait(&self, wait: Duration) -> WdResult<()> {
        let ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
        self.session_command(reqwest::Method::POST, "/timeouts", Some(json!({"implicit": ms})))
            .await?;
        Ok(())
    }

    /// Clicks `element` (a link or button: waits for the navigation it starts).
    pub async fn click(&self, element: &Element) -> WdResult<()> {
        self.session_command(
            reqwest::Method::POST,
            &format!("/element/{}/click", element.id),
            None,
        )
        .await?;
        Ok(())
    }

    /// Clicks `element` and waits until the page it leads to has replaced the current
    /// one (the current document's root element goes stale): for form submits, which
    /// the driver does not always wait for. While the browser navigates, the driver may
    /// answer other errors (no execution context yet); they are retried until the
    /// deadline, and a click error counts only if the page never changes.
    pub async fn click_and_wait(&self, element: &Element) -> WdResult<()> {
        let root = self.find("html").await?;
        let clicked = self.click(element).await;
        self.wait_replaced(&root, clicked).await
    }

    /// Runs `script` (which submits a form or navigates) and waits for the new page, as
    /// [`Driver::click_and_wait`] does.
    pub async fn execute_and_wait(&self, script: &str, args: Value) -> WdResult<()> {
        let root = self.find("html").await?;
        let ran = self.execute(script, args).await.map(drop);
        self.wait_replaced(&root, ran).await
    }

    /// Waits until `root` (the old page's root element) is stale; `started` is the
    /// outcome of what was meant to navigate.
    async fn wait_replaced(&self, root: &Element, started: WdResult<()>) -> WdResult<()> {
        let deadline = Instant::now() + NAVIGATION_TIMEOUT;
        loop {
            let last = match self.property(root, "tagName").await {
                Err(e) if e.error == "stale element reference" => return Ok(()),
                Err(e) => e,
                Ok(_) => WebDriverError {
                    error: "timeout".into(),
                    message: format!(
                        "the click did not lead to a new page in {NAVIGATION_TIMEOUT:?}"
                    ),
                },
            };
            if Instant::now() > deadline {
                return Err(started.err().unwrap_or(last));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Clears a field and types `text` into it.
    pub async fn fill(&self, element: &Element, text: &str) -> WdResult<()> {
        self.session_command(
            reqwest::Method::POST,
            &format!("/element/{}/clear", element.id),
            None,
        )
        .await?;
        if !text.is_empty() {
            self.session_command(
                reqwest::Method::POST,
                &format!("/element/{}/value", element.id),
                Some(json!({"text": text})),
            )
            .await?;
        }
        Ok(())
    }

    /// Presses each key of `keys` in turn on whatever has the focus (WebDriver key
    /// values: `"\u{E004}"` is Tab).
    pub async fn keys(&self, keys: &str) -> WdResult<()> {
        let actions: Vec<Value> = keys
            .chars()
            .flat_map(|k| {
                let k = k.to_string();
                [json!({"type": "keyDown", "value": k}), json!({"type": "keyUp", "value": k})]
            })
            .collect();
        let body = json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]});
        self.session_command(reqwest::Method::POST, "/actions", Some(body)).await?;
        Ok(())
    }

    /// The rendered text of `element`.
    pub async fn text(&self, element: &Element) -> WdResult<String> {
        let v = self
            .session_command(reqwest::Method::GET, &format!("/element/{}/text", element.id), None)
            .await?;
        Ok(v.as_str().unwrap_or_default().to_owned())
    }

    /// The rendered text of the first element matching `selector`.
    pub async fn text_of(&self, selector: &str) -> WdResult<String> {
        let element = self.find(selector).await?;
        self.text(&element).await
    }

    /// A DOM property of `element` (`value`, `tagName`, ...), as JSON.
    pub async fn property(&self, element: &Element, name: &str) -> WdResult<Value> {
        self.session_command(
            reqwest::Method::GET,
            &format!("/element/{}/property/{name}", element.id),
            None,
        )
        .await
    }

    /// An attribute of `element`, if present.
    pub async fn attribute(&self, element: &Element, name: &str) -> WdResult<Option<String>> {
        let v = self
            .session_command(
                reqwest::Method::GET,
                &format!("/element/{}/attribute/{name}", element.id),
                None,
            )
            .await?;
        Ok(v.as_str().map(str::to_owned))
    }

    /// Runs `script` (a function body; `arguments` holds `args`) in the page, with the
    /// driver's privileges (not subject to the page's Content-Security-Policy).
    pub async fn execute(&self, script: &str, args: Value) -> WdResult<Value> {
        self.session_command(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
        .await
    }

    /// The cookies the browser holds for the current page.
    pub async fn cookies(&self) -> WdResult<Vec<Value>> {
        let v = self.session_command(reqwest::Method::GET, "/cookie", None).await?;
        Ok(v.as_array().cloned().unwrap_or_default())
    }

    /// The text of the open alert, confirm or prompt dialog; `None` when there is none.
    pub async fn alert_text(&self) -> WdResult<Option<String>> {
        match self.session_command(reqwest::Method::GET, "/alert/text", None).await {
            Ok(v) => Ok(Some(v.as_str().unwrap_or_default().to_owned())),
            Err(e) if e.error == "no such alert" => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Resizes the window.
    pub async fn resize(&self, width: u32, height: u32) -> WdResult<()> {
        self.session_command(
            reqwest::Method::POST,
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        )
        .await?;
        Ok(())
    }

    /// A PNG screenshot of the window (the base64 the driver sends, decoded).
    pub async fn screenshot(&self) -> WdResult<Vec<u8>> {
        use base64::Engine as _;
        let v = self.session_command(reqwest::Method::GET, "/screenshot", None).await?;
        base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap_or_default())
            .map_err(transport)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // `DELETE /session/{id}` closes the browser; then the driver is stopped.
        self.delete_session();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    /// Ends the browser session with a plain blocking request (drop cannot await).
    fn delete_session(&self) {
        use std::io::{Read as _, Write as _};
        let Some(address) = self.base.strip_prefix("http://") else { return };
        let Ok(mut stream) = std::net::TcpStream::connect(address) else { return };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let request = format!(
            "DELETE /session/{} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n",
            self.session
        );
        if stream.write_all(request.as_bytes()).is_ok() {
            // The driver answers once the browser is closed; the status line is enough
            // (it may keep the connection open).
            let mut buf = [0u8; 512];
            let mut seen = Vec::new();
            while let Ok(n) = stream.read(&mut buf) {
                seen.extend_from_slice(&buf[..n]);
                if n == 0 || seen.windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
        }
    }
}

fn transport(e: impl std::fmt::Display) -> WebDriverError {
    WebDriverError { error: "transport".into(), message: e.to_string() }
}
