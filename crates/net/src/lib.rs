//! Live sends: the bytes of the wire view, sent with an
//! async HTTP client on tokio; the reply read as it arrives and parsed as
//! AgentScope parses it. The core builds the request and parses the events;
//! this layer only moves bytes and keeps time.

pub mod exchange;
pub mod fetch;
pub mod hosts;
mod limits;
pub mod listen;
pub mod printer;
pub mod profile;
pub mod record;
pub mod redact;
pub mod seen;

pub use limits::{check_headers, BODY_LIMIT, ERROR_BODY_LIMIT, MAX_HEADERS, MAX_HEADER_BYTES};
pub use seen::error_message;

use limits::{body_too_large, read_body, stream_too_large};

use formatscope_core::provider::Provider;
use formatscope_core::response::framing::EventReader;
use formatscope_core::response::{
    parse_whole, Api, ChatResponse, Event, Options, ParseError, StreamParser, Yielded,
};
use seen::{api_name, content_type_fits, Seen};
use serde_json::{Map, Value};
use std::time::{Duration, Instant};

/// The environment variables that hold each provider's key, in the order
/// they are looked up (Ollama needs none).
pub fn key_variables(provider: Provider) -> &'static [&'static str] {
    match provider {
        Provider::OpenAi => &["OPENAI_API_KEY"],
        Provider::DeepSeek => &["DEEPSEEK_API_KEY"],
        Provider::Anthropic => &["ANTHROPIC_API_KEY"],
        Provider::DashScope => &["DASHSCOPE_API_KEY"],
        Provider::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        Provider::Ollama => &[],
    }
}

/// The variable that moves a provider's base URL, as its SDK reads it
/// (`DEEPSEEK_BASE_URL` is ours: DeepSeek goes through the OpenAI class
/// with an explicit base URL), and where the model class takes it.
pub fn base_url_variable(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi => "OPENAI_BASE_URL",
        Provider::DeepSeek => "DEEPSEEK_BASE_URL",
        Provider::Anthropic => "ANTHROPIC_BASE_URL",
        Provider::DashScope => "DASHSCOPE_HTTP_BASE_URL",
        Provider::Gemini => "GOOGLE_GEMINI_BASE_URL",
        Provider::Ollama => "OLLAMA_HOST",
    }
}

/// Puts a base URL from the environment into the model's constructor
/// arguments, unless the session already sets one.
pub fn apply_base_url(provider: Provider, model_kwargs: &mut Map<String, Value>, url: &str) {
    put_base_url(provider, model_kwargs, url, false);
}

/// Puts the base URL the user gave on the command line into the model's
/// constructor arguments, over the session's own.
pub fn set_base_url(provider: Provider, model_kwargs: &mut Map<String, Value>, url: &str) {
    put_base_url(provider, model_kwargs, url, true);
}

fn put_base_url(
    provider: Provider,
    model_kwargs: &mut Map<String, Value>,
    url: &str,
    over_the_sessions: bool,
) {
    fn nested<'a>(m: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
        let slot = m
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        slot.as_object_mut().expect("an object was just put there")
    }
    let (map, key) = match provider {
        Provider::OpenAi | Provider::DeepSeek | Provider::Anthropic => {
            (nested(model_kwargs, "client_kwargs"), "base_url")
        }
        Provider::Gemini => (
            nested(nested(model_kwargs, "client_kwargs"), "http_options"),
            "base_url",
        ),
        Provider::DashScope => (model_kwargs, "base_http_api_url"),
        Provider::Ollama => (model_kwargs, "host"),
    };
    if over_the_sessions {
        map.insert(key.to_string(), Value::String(url.to_string()));
    } else {
        map.entry(key.to_string())
            .or_insert_with(|| Value::String(url.to_string()));
    }
}

/// Moves the base URL to the one in the provider's variable
/// ([`base_url_variable`]), unless the session sets its own.
pub fn apply_base_url_from_env(provider: Provider, model_kwargs: &mut Map<String, Value>) {
    if let Some(url) = std::env::var(base_url_variable(provider))
        .ok()
        .filter(|u| !u.is_empty())
    {
        apply_base_url(provider, model_kwargs, &url);
    }
}

/// Whether the provider counts tokens for us (`count_tokens`,
/// `countTokens`).
pub fn has_token_counter(provider: Provider) -> bool {
    matches!(provider, Provider::Anthropic | Provider::Gemini)
}

/// A key that never prints itself.
#[derive(Clone)]
pub struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl ApiKey {
    /// The key in `variable` of `env`, when set (spaces around it cut);
    /// `Err` names the variable to set.
    pub fn from_variable(
        variable: &str,
        who: &str,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<ApiKey, SendError> {
        env(variable)
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
            .map(ApiKey)
            .ok_or_else(|| SendError::MissingKey {
                provider: who.to_string(),
                variables: variable.to_string(),
            })
    }
}

/// The key for a provider from `env`, or which variable to set.
pub fn find_key(
    provider: Provider,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<ApiKey>, SendError> {
    let vars = key_variables(provider);
    if vars.is_empty() {
        return Ok(None);
    }
    for var in vars {
        if let Some(k) = env(var).filter(|k| !k.trim().is_empty()) {
            return Ok(Some(ApiKey(k.trim().to_string())));
        }
    }
    Err(SendError::MissingKey {
        provider: provider.to_string(),
        variables: vars.join(" or "),
    })
}

/// What to send: the wire view's method, URL, headers (`<API_KEY>` still
/// in them) and body bytes.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub api: Api,
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub stream: bool,
}

impl Prepared {
    /// A built request as it goes out: its method, URL and headers, its
    /// body's bytes as its SDK writes them; `api` frames the reply.
    pub fn from_wire(wire: &formatscope_core::wire::Wire, api: Api, stream: bool) -> Prepared {
        Prepared {
            api,
            method: wire.method.to_string(),
            url: wire.url.clone(),
            headers: wire
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect(),
            body: wire.body_bytes().into_bytes(),
            stream,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub connect: Duration,
    /// From the request to the response's first byte.
    pub first_byte: Duration,
    /// Between two reads of a streamed body.
    pub idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            first_byte: Duration::from_secs(120),
            idle: Duration::from_secs(60),
        }
    }
}

/// Why a send produced no reply. Never holds the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    #[error("no API key for {provider}: set {variables}")]
    MissingKey { provider: String, variables: String },
    #[error("cannot connect to {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("no {what} within {after:?} from {url}")]
    Timeout {
        what: &'static str,
        after: Duration,
        url: String,
    },
    #[error("HTTP {status} from {url}: {message}{}", retry_after.as_ref().map(|r| format!(" (retry after {r})")).unwrap_or_default())]
    Http {
        status: u16,
        url: String,
        message: String,
        retry_after: Option<String>,
    },
    #[error("HTTP {status} from {url} redirects to {location}; formatscope does not follow redirects with a key: the key goes only to the host you chose (if {host} is right, pass it with --base-url or the provider's variable)")]
    Redirect {
        status: u16,
        url: String,
        location: String,
        host: String,
    },
    #[error("the connection broke mid-reply: {0}")]
    Dropped(String),
    #[error("{0}")]
    Stream(String),
    /// The body is not the provider's reply: what came back, said.
    #[error("{0}")]
    NotAReply(String),
    #[error("cancelled")]
    Cancelled,
}

/// How a send went.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub final_response: Option<ChatResponse>,
    pub chunks: usize,
    /// Until the first response with content.
    pub time_to_first_token: Option<Duration>,
    pub total: Duration,
    /// What the SDK or AgentScope raised while parsing (the responses
    /// before it stand).
    pub parse_error: Option<ParseError>,
    pub warnings: Vec<String>,
    /// The body parsed without error but AgentScope yields nothing from it
    /// (another API's shape, or no content and no usage): what came back.
    pub nothing: Option<String>,
}

impl Outcome {
    /// Output tokens per second of the whole request, when usage came.
    pub fn tokens_per_second(&self) -> Option<f64> {
        let out = self.final_response.as_ref()?.usage.as_ref()?.output()? as f64;
        let secs = self.total.as_secs_f64();
        (secs > 0.0).then(|| out / secs)
    }
}

/// How long a stream may be quiet before `send` reports its latest
/// response again ([`Yielded::again`]): a view that skips responses to stay
/// linear catches up.
pub const QUIET: Duration = Duration::from_millis(50);

/// Sends the request and reads the reply. `on_response` sees every
/// response AgentScope yields, as it is parsed, unbuilt (building each one
/// of a long stream would be quadratic; see `response::stream`), and the
/// latest one again when the stream has been quiet for [`QUIET`] or ends.
/// Cancel by dropping the future (the connection closes).
pub async fn send(
    client: &reqwest::Client,
    prepared: &Prepared,
    key: Option<&ApiKey>,
    opts: &Options,
    timeouts: Timeouts,
    mut on_response: impl FnMut(&Yielded<'_>),
) -> Result<Outcome, SendError> {
    let start = Instant::now();
    let url = prepared.url.clone();
    let mut resp = open(client, prepared, key, timeouts).await?;
    let mut outcome = Outcome {
        final_response: None,
        chunks: 0,
        time_to_first_token: None,
        total: Duration::ZERO,
        parse_error: None,
        warnings: Vec::new(),
        nothing: None,
    };
    let mut seen = Seen::new(
        resp.status().as_u16(),
        resp.headers()
            .get(reqwest::header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
    );
    let name = api_name(prepared.api);
    let article = if matches!(name.as_bytes().first(), Some(b'A' | b'O')) {
        "an"
    } else {
        "a"
    };
    let not_reply = format!("not {article} {name} reply");
    if !content_type_fits(prepared.api, prepared.stream, seen.content_type.as_deref()) {
        read_some(&mut resp, &mut seen, timeouts.idle).await;
        return Err(SendError::NotAReply(seen.describe(&not_reply)));
    }
    let note =
        |r: &Yielded<'_>, outcome: &mut Outcome, on_response: &mut dyn FnMut(&Yielded<'_>)| {
            outcome.chunks += 1;
            if outcome.time_to_first_token.is_none() && r.has_content() {
                outcome.time_to_first_token = Some(start.elapsed());
            }
            on_response(r);
        };
    if !prepared.stream {
        let body = match tokio::time::timeout(timeouts.idle, read_body(&mut resp, BODY_LIMIT)).await
        {
            Err(_) => {
                return Err(SendError::Timeout {
                    what: "body",
                    after: timeouts.idle,
                    url,
                })
            }
            Ok(Err(e)) => return Err(SendError::Dropped(root_cause(&e))),
            Ok(Ok((_, true))) => return Err(SendError::Stream(body_too_large())),
            Ok(Ok((b, false))) => b,
        };
        seen.push(&body);
        let Some(value) =
            formatscope_core::response::args::py_loads(&String::from_utf8_lossy(&body))
                .filter(|_| !body.is_empty())
        else {
            let why = if body.is_empty() {
                not_reply
            } else {
                format!("not JSON, so {not_reply}")
            };
            return Err(SendError::NotAReply(seen.describe(&why)));
        };
        let mut warnings = Vec::new();
        match parse_whole(prepared.api, &value, opts, start, &mut warnings) {
            Ok(r) => {
                // Every shape parses to some response; one with nothing an
                // agent keeps was not the provider's (or is empty).
                if !r.holds_something() {
                    // Nothing at all is plainly another API's body.
                    let why = if r.content.is_empty() && r.usage.is_none() {
                        not_reply.clone()
                    } else {
                        format!("{not_reply}, {EMPTY}")
                    };
                    outcome.nothing = Some(seen.describe(&why));
                }
                note(&Yielded::whole(&r), &mut outcome, &mut on_response);
                outcome.final_response = Some(r);
            }
            Err(e) => outcome.parse_error = Some(e),
        }
        outcome.warnings = warnings;
        outcome.total = start.elapsed();
        return Ok(outcome);
    }
    let mut reader = EventReader::new(prepared.api);
    let mut parser = StreamParser::new(prepared.api, opts, start);
    // Responses yielded since the last one was reported again.
    let mut unsettled = false;
    let feed = |events: Vec<Event>,
                parser: &mut StreamParser,
                outcome: &mut Outcome,
                on_response: &mut dyn FnMut(&Yielded<'_>),
                unsettled: &mut bool|
     -> bool {
        for ev in events {
            match parser.push(&ev) {
                Ok(true) => {
                    *unsettled = true;
                    note(&Yielded::stream(parser), outcome, on_response);
                }
                Ok(false) => {}
                Err(e) => {
                    outcome.parse_error = Some(e);
                    return false;
                }
            }
            if parser.stopped() {
                return false;
            }
        }
        true
    };
    let read = async {
        loop {
            let next = tokio::time::timeout(timeouts.idle, resp.chunk());
            tokio::pin!(next);
            let chunk = loop {
                tokio::select! {
                    c = &mut next => break c,
                    _ = tokio::time::sleep(QUIET), if unsettled => {
                        unsettled = false;
                        on_response(&Yielded::again(&parser));
                    }
                }
            };
            let chunk = match chunk {
                Err(_) => {
                    return Err(SendError::Timeout {
                        what: "stream data",
                        after: timeouts.idle,
                        url,
                    })
                }
                Ok(Err(e)) => return Err(SendError::Dropped(root_cause(&e))),
                Ok(Ok(None)) => return Ok(()),
                Ok(Ok(Some(c))) => c,
            };
            seen.push(&chunk);
            // A stream without end must not fill memory with its content
            // (the parser holds the reply so far): the whole reply is
            // capped as a non-streamed body is.
            if seen.bytes > BODY_LIMIT {
                return Err(SendError::Stream(stream_too_large()));
            }
            let events = reader.push(&chunk)?;
            if !feed(
                events,
                &mut parser,
                &mut outcome,
                &mut on_response,
                &mut unsettled,
            ) {
                return Ok(());
            }
        }
    };
    let read = read.await;
    if unsettled {
        // The stream ended or failed: its latest response, once more.
        on_response(&Yielded::again(&parser));
        unsettled = false;
    }
    read?;
    if seen.bytes == 0 {
        return Err(SendError::NotAReply(seen.describe(&not_reply)));
    }
    if outcome.parse_error.is_none() && !parser.stopped() {
        let events = reader.finish()?;
        feed(
            events,
            &mut parser,
            &mut outcome,
            &mut on_response,
            &mut unsettled,
        );
    }
    if outcome.parse_error.is_none() {
        match parser.finish() {
            Ok(true) => {
                unsettled = true;
                note(&Yielded::stream(&parser), &mut outcome, &mut on_response);
            }
            Ok(false) => {}
            Err(e) => outcome.parse_error = Some(e),
        }
    }
    if unsettled {
        on_response(&Yielded::again(&parser));
    }
    outcome.final_response = parser.final_response();
    if outcome.parse_error.is_none() && outcome.chunks == 0 {
        outcome.nothing = Some(seen.describe(&format!(
            "AgentScope yields nothing from it: {not_reply}, or one without content"
        )));
    } else if outcome.parse_error.is_none()
        && !outcome
            .final_response
            .as_ref()
            .is_some_and(ChatResponse::holds_something)
    {
        outcome.nothing = Some(seen.describe(&format!(
            "AgentScope yields no content from it: {not_reply}, {EMPTY}"
        )));
    }
    outcome.warnings = std::mem::take(&mut parser.warnings);
    outcome.total = start.elapsed();
    Ok(outcome)
}

/// What a reply that parsed to nothing usable may also be.
const EMPTY: &str = "or one with nothing an agent keeps (no text, thinking, tool call or media)";

/// Reads what is left of a body that is not a reply, enough to say what it
/// is: at most 1 MiB, and no longer than the idle timeout per read.
async fn read_some(resp: &mut reqwest::Response, seen: &mut Seen, idle: Duration) {
    const MOST: usize = 1 << 20;
    while seen.bytes < MOST {
        match tokio::time::timeout(idle, resp.chunk()).await {
            Ok(Ok(Some(c))) => seen.push(&c),
            Ok(Ok(None)) => return,
            _ => break,
        }
    }
    seen.cut = true;
}

/// Sends `prepared` (the key put in its headers) and waits for the
/// response's head; a status that is not success is the provider's error,
/// read from its body, with its `retry-after`.
pub(crate) async fn open(
    client: &reqwest::Client,
    prepared: &Prepared,
    key: Option<&ApiKey>,
    timeouts: Timeouts,
) -> Result<reqwest::Response, SendError> {
    check_headers(&prepared.headers)?;
    let method =
        reqwest::Method::from_bytes(prepared.method.as_bytes()).unwrap_or(reqwest::Method::POST);
    let mut req = client.request(method, &prepared.url);
    for (name, value) in &prepared.headers {
        let value = match key {
            Some(k) => value.replace(formatscope_core::wire::API_KEY, &k.0),
            None => value.clone(),
        };
        req = req.header(name.as_str(), value);
    }
    let url = prepared.url.clone();
    let resp =
        match tokio::time::timeout(timeouts.first_byte, req.body(prepared.body.clone()).send())
            .await
        {
            Err(_) => {
                return Err(SendError::Timeout {
                    what: "response",
                    after: timeouts.first_byte,
                    url,
                })
            }
            Ok(Err(e)) => {
                return Err(SendError::Connect {
                    url,
                    reason: root_cause(&e),
                })
            }
            Ok(Ok(r)) => r,
        };
    let status = resp.status();
    if status.is_success() {
        return Ok(resp);
    }
    if status.is_redirection() {
        // Never followed (see `client`): a redirect would carry the key,
        // and for 307/308 the body, to a host nobody chose.
        let location = resp
            .headers()
            .get("location")
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default();
        let target = reqwest::Url::parse(&url)
            .and_then(|base| base.join(&location))
            .ok();
        let host = target
            .and_then(|t| hosts::Host::of_url(t.as_str()))
            .map_or_else(|| "(no host)".into(), |h| h.to_string());
        return Err(SendError::Redirect {
            status: status.as_u16(),
            url,
            location: if location.is_empty() {
                "nowhere (no Location)".into()
            } else {
                location
            },
            host,
        });
    }
    let retry_after = resp
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut resp = resp;
    let (body, cut) = tokio::time::timeout(timeouts.idle, read_body(&mut resp, ERROR_BODY_LIMIT))
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    // A provider may echo the header that carried the key: never kept.
    let mut message = redact::redact(&error_message(&body), key).into_owned();
    if cut {
        message.push_str(&format!(
            " (the error body was cut at the {} KB error-body limit)",
            ERROR_BODY_LIMIT / 1024
        ));
    }
    Err(SendError::Http {
        status: status.as_u16(),
        url,
        message,
        retry_after,
    })
}

/// The innermost error's text (reqwest wraps hyper wraps io).
pub(crate) fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur: &dyn std::error::Error = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// A client with the connect timeout (one per run: it keeps connections).
/// It follows no redirect: reqwest would repeat the request, with the
/// `x-api-key` / `x-goog-api-key` header and (for 307/308) the body, to
/// whatever host the `Location` names; a redirect is reported instead.
pub fn client(timeouts: Timeouts) -> Result<reqwest::Client, SendError> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        // The request goes as the wire view shows it: no Accept-Encoding
        // added (the media downloads' gzip must not reach the sends).
        .no_gzip()
        .no_deflate()
        .connect_timeout(timeouts.connect)
        .build()
        .map_err(|e| SendError::Connect {
            url: String::new(),
            reason: root_cause(&e),
        })
}

/// The session's `"reply": {"split_think_tags": true}`: split `<think>` in
/// DashScope and Ollama replies (beyond AgentScope; off by default).
pub fn session_splits_think_tags(settings: &Map<String, Value>) -> bool {
    settings
        .get("reply")
        .and_then(|r| r.get("split_think_tags"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// The request `pipeline::build_request` built, ready to send, and the options its
/// model class parses the reply with. `None` when nothing would be sent
/// (AgentScope or the SDK raises first).
pub fn prepare(
    provider: Provider,
    built: &formatscope_core::pipeline::BuiltRequest,
    split_think_tags: bool,
) -> Result<(Prepared, Options), String> {
    let wire = match (&built.outcome, built.error()) {
        (Ok(w), None) => w,
        (_, why) => {
            let why = why.unwrap_or_else(|| "the request cannot be built".into());
            return Err(format!("nothing was sent: {why}"));
        }
    };
    let api = Api::from_provider(provider);
    let stream = wire.kwargs.get("stream").and_then(Value::as_bool) == Some(true)
        || wire.sdk_call.contains("stream");
    let prepared = Prepared::from_wire(wire, api, stream);
    let mut opts = Options::new(api);
    if let Some(m) = wire.kwargs.get("model").and_then(Value::as_str) {
        opts.model_name = m.to_string();
    }
    let ctor = &wire.model_kwargs;
    if let Some(b) = ctor.get("stream_tool_parsing").and_then(Value::as_bool) {
        opts.stream_tool_parsing = b;
    }
    if let Some(m) = ctor.get("multimodality").and_then(Value::as_bool) {
        opts.multimodality = Some(m);
    }
    opts.audio_format = ctor
        .get("generate_kwargs")
        .and_then(|g| g.get("audio"))
        .and_then(|a| a.get("format"))
        .and_then(Value::as_str)
        .map(str::to_string);
    opts.split_think_tags = split_think_tags;
    Ok((prepared, opts))
}

/// The token-counting request of a provider that has one (Anthropic's
/// `/v1/messages/count_tokens`, Gemini's `:countTokens`), made from the
/// request that would be sent: same URL base, headers and content.
pub fn count_request(prepared: &Prepared, provider: Provider) -> Result<Prepared, String> {
    let body: Value = serde_json::from_slice(&prepared.body)
        .map_err(|e| format!("the request body is not JSON: {e}"))?;
    let (url, body) = match provider {
        Provider::Anthropic => {
            let url = prepared
                .url
                .strip_suffix("/v1/messages")
                .map(|base| format!("{base}/v1/messages/count_tokens"))
                .ok_or("not a messages URL")?;
            let mut out = Map::new();
            for key in [
                "model",
                "messages",
                "system",
                "tools",
                "tool_choice",
                "thinking",
            ] {
                if let Some(v) = body.get(key) {
                    out.insert(key.into(), v.clone());
                }
            }
            (url, Value::Object(out))
        }
        Provider::Gemini => {
            let (base, _) = prepared.url.rsplit_once(':').ok_or("not a model URL")?;
            let model = base
                .rsplit_once("/v1beta/")
                .map(|(_, m)| m.to_string())
                .ok_or("not a v1beta URL")?;
            let mut request = Map::new();
            request.insert("model".into(), Value::String(model));
            if let Some(obj) = body.as_object() {
                for (k, v) in obj {
                    // countTokens takes the generate request whole, less
                    // what only shapes the output.
                    if k != "generationConfig" {
                        request.insert(k.clone(), v.clone());
                    }
                }
            }
            (
                format!("{base}:countTokens"),
                formatscope_core::json!({ "generateContentRequest": Value::Object(request) }),
            )
        }
        other => return Err(format!("{other} has no token-counting endpoint")),
    };
    Ok(Prepared {
        api: prepared.api,
        method: "POST".into(),
        url,
        headers: prepared
            .headers
            .iter()
            .filter(|(k, _)| k != "accept" || provider != Provider::Anthropic)
            .cloned()
            .collect(),
        body: serde_json::to_vec(&body).unwrap_or_default(),
        stream: false,
    })
}

/// Asks the provider to count the request's input tokens.
pub async fn count_remote(
    client: &reqwest::Client,
    provider: Provider,
    prepared: &Prepared,
    key: Option<&ApiKey>,
    timeouts: Timeouts,
) -> Result<u64, SendError> {
    let req = count_request(prepared, provider).map_err(SendError::Stream)?;
    let mut resp = open(client, &req, key, timeouts).await?;
    let (body, cut) = tokio::time::timeout(timeouts.idle, read_body(&mut resp, BODY_LIMIT))
        .await
        .map_err(|_| SendError::Timeout {
            what: "body",
            after: timeouts.idle,
            url: req.url.clone(),
        })?
        .map_err(|e| SendError::Dropped(root_cause(&e)))?;
    if cut {
        return Err(SendError::Stream(body_too_large()));
    }
    let v: Value = serde_json::from_slice(&body)
        .map_err(|_| SendError::Stream("the count is not JSON".into()))?;
    v.get("input_tokens")
        .or_else(|| v.get("totalTokens"))
        .and_then(Value::as_u64)
        .ok_or_else(|| SendError::Stream(format!("no token count in {v}")))
}
