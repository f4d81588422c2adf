//! `rules lsp`: a language server over stdio. It checks the whole game a file belongs to with
//! the real checker, the editor's unsaved buffers overlaid on the files on disk, and answers
//! from the game's names: hover, go to definition, references, completion, document symbols,
//! and formatting through `rules fmt`.
//!
//! Nothing an editor sends ends the server but `exit` (or the end of its input): bytes that make
//! no message get a parse error (`rpc.rs` reads the framing against `Limits`), a message that is
//! not JSON-RPC 2.0 an invalid request, a request before `initialize` the LSP's "not
//! initialized", a request after `shutdown` an invalid request, parameters that do not fit
//! their method invalid parameters (for a notification, a `window/logMessage`), and a file
//! that does not parse still gets its diagnostics, and what the rest of the game can answer.
//! A handler that panics (a bug) does not end it either: the request gets an internal error,
//! a notification a `window/logMessage`, the checked games are dropped (one may be half
//! updated) and the server goes on.

mod answers;
mod game;
mod index;
mod rpc;
mod text;

use crate::limits::Limits;
use game::Workspace;
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    notification, request, CompletionOptions, HoverProviderCapability, OneOf, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind,
};
use rpc::{code, Frame, Incoming};
use serde_json::{json, Value};
use std::io::{self, BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// Serve on stdin and stdout until the editor says `exit`, or closes stdin. The exit code is
/// the LSP's: 0 when `shutdown` came first, else 1.
pub fn run() -> io::Result<u8> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    serve(stdin.lock(), &mut stdout.lock(), Limits::default())
}

/// Serve the messages of `input`, writing the answers to `output`, until `exit` or the end of
/// `input`; only an error of the streams themselves is an `Err`.
pub fn serve(input: impl BufRead, output: &mut impl Write, limits: Limits) -> io::Result<u8> {
    let mut reader = rpc::Reader::new(input, &limits);
    let mut server = Server {
        ws: Workspace::new(limits),
        state: State::Waiting,
        #[cfg(test)]
        panic_on: None,
    };
    serve_with(&mut reader, output, &mut server)
}

fn serve_with(
    reader: &mut rpc::Reader<impl BufRead>,
    output: &mut impl Write,
    server: &mut Server,
) -> io::Result<u8> {
    let mut out = Vec::new();
    loop {
        let exit = match reader.next()? {
            Frame::End => Some(server.exit_code()),
            Frame::Bad { code, message } => {
                out.push(rpc::error(Value::Null, code, message));
                None
            }
            Frame::Message(v) => server.handle(rpc::classify(v), &mut out),
        };
        for msg in out.drain(..) {
            rpc::write(output, &msg)?;
        }
        if let Some(code) = exit {
            return Ok(code);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before `initialize`.
    Waiting,
    Running,
    /// After `shutdown`: only `exit` is expected.
    ShutDown,
}

struct Server {
    ws: Workspace,
    state: State,
    /// In unit tests, a method whose handler panics (to test the guard).
    #[cfg(test)]
    panic_on: Option<String>,
}

/// Run `f`, giving a panic's message instead of unwinding further.
fn guard<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        e.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string())
    })
}

impl Server {
    fn exit_code(&self) -> u8 {
        if self.state == State::ShutDown {
            0
        } else {
            1
        }
    }

    /// Answer one message into `out`; `Some(code)` when the server is to exit.
    fn handle(&mut self, msg: Incoming, out: &mut Vec<Value>) -> Option<u8> {
        match msg {
            Incoming::Invalid { id, message } => {
                out.push(rpc::error(id, code::INVALID_REQUEST, message));
            }
            Incoming::Response => {}
            Incoming::Notification { method, .. } if method == "exit" => {
                return Some(self.exit_code());
            }
            // Before `initialize` and after `shutdown`, notifications are dropped.
            Incoming::Notification { method, params } if self.state == State::Running => {
                match guard(|| self.notify(&method, params)) {
                    Ok(list) => out.extend(list),
                    Err(e) => {
                        self.ws.forget_games();
                        out.push(rpc::notification(
                            notification::LogMessage::METHOD,
                            json!({ "type": 1, "message": internal(&method, &e) }),
                        ));
                    }
                }
            }
            Incoming::Notification { .. } => {}
            Incoming::Request { id, method, params } => {
                let answer = match guard(|| self.request(id.clone(), &method, params)) {
                    Ok(answer) => answer,
                    Err(e) => {
                        self.ws.forget_games();
                        rpc::error(id, code::INTERNAL_ERROR, internal(&method, &e))
                    }
                };
                out.push(answer);
            }
        }
        None
    }

    fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        match (self.state, method) {
            (State::Waiting, request::Initialize::METHOD) => match roots(&params) {
                Ok(roots) => {
                    self.ws.set_roots(roots);
                    self.state = State::Running;
                    rpc::ok(id, initialize_result())
                }
                Err(e) => rpc::error(id, code::INVALID_PARAMS, e),
            },
            (State::Waiting, _) => rpc::error(
                id,
                code::SERVER_NOT_INITIALIZED,
                "the server is not initialized yet: `initialize` comes first",
            ),
            (State::ShutDown, _) => rpc::error(
                id,
                code::INVALID_REQUEST,
                "the server is shut down: only `exit` is expected",
            ),
            (State::Running, request::Initialize::METHOD) => rpc::error(
                id,
                code::INVALID_REQUEST,
                "the server is already initialized",
            ),
            (State::Running, request::Shutdown::METHOD) => {
                self.state = State::ShutDown;
                rpc::ok(id, Value::Null)
            }
            (State::Running, _) => {
                #[cfg(test)]
                if self.panic_on.as_deref() == Some(method) {
                    panic!("a test's panic in `{method}`");
                }
                answer(&mut self.ws, id, method, params)
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) -> Vec<Value> {
        #[cfg(test)]
        if self.panic_on.as_deref() == Some(method) {
            panic!("a test's panic in `{method}`");
        }
        notify(&mut self.ws, method, params)
    }
}

/// What the editor is told when the handler of `method` panicked.
fn internal(method: &str, panic: &str) -> String {
    format!(
        "`{method}` failed: an internal error of the rules language server (please report it): \
         {panic}"
    )
}

fn initialize_result() -> Value {
    let caps = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into(), "@".into()]),
            ..CompletionOptions::default()
        }),
        ..ServerCapabilities::default()
    };
    json!({ "capabilities": to_json(caps) })
}

/// The workspace folders `initialize` names: `workspaceFolders`, else `rootUri`, else
/// `rootPath` (each only if it is an absolute `file://` path). None at all is allowed.
fn roots(params: &Value) -> Result<Vec<PathBuf>, String> {
    if !params.is_object() {
        return Err("bad parameters: `initialize` takes an object".into());
    }
    let path = |uri: &Value| {
        let uri: lsp_types::Uri = uri.as_str()?.parse().ok()?;
        text::path_of(&uri)
    };
    let mut out: Vec<PathBuf> = params
        .get("workspaceFolders")
        .and_then(Value::as_array)
        .map(|fs| fs.iter().filter_map(|f| path(f.get("uri")?)).collect())
        .unwrap_or_default();
    if out.is_empty() {
        out.extend(params.get("rootUri").and_then(path));
    }
    if out.is_empty() {
        out.extend(
            params
                .get("rootPath")
                .and_then(Value::as_str)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute()),
        );
    }
    Ok(out)
}

/// A request's answer: the result, or `null` when there is none; parameters that do not fit
/// the method are an `InvalidParams` error.
fn answer(ws: &mut Workspace, id: Value, method: &str, params: Value) -> Value {
    let result = match method {
        request::HoverRequest::METHOD => parse(params).map(|p| to_json(ws.hover(p))),
        request::GotoDefinition::METHOD => parse(params).map(|p| to_json(ws.definition(p))),
        request::References::METHOD => parse(params).map(|p| to_json(ws.references(p))),
        request::Completion::METHOD => parse(params).map(|p| to_json(ws.completion(p))),
        request::DocumentSymbolRequest::METHOD => parse(params).map(|p| to_json(ws.symbols(p))),
        request::Formatting::METHOD => match parse(params).map(|p| ws.format(p)) {
            Ok(Ok(edits)) => Ok(to_json(edits)),
            // A file that does not parse is not formatted: the editor keeps its text.
            Ok(Err(e)) => return rpc::error(id, code::REQUEST_FAILED, e),
            Err(e) => Err(e),
        },
        _ => {
            return rpc::error(
                id,
                code::METHOD_NOT_FOUND,
                format!("`{method}` is not supported"),
            )
        }
    };
    match result {
        Ok(v) => rpc::ok(id, v),
        Err(e) => rpc::error(id, code::INVALID_PARAMS, e),
    }
}

fn parse<P: serde::de::DeserializeOwned>(params: Value) -> Result<P, String> {
    serde_json::from_value(params).map_err(|e| format!("bad parameters: {e}"))
}

fn to_json<T: serde::Serialize>(v: T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// Open, change, save and close: each re-checks the game and publishes its diagnostics.
/// Parameters that do not fit are told in a `window/logMessage` (a notification has no answer).
fn notify(ws: &mut Workspace, method: &str, params: Value) -> Vec<Value> {
    let published = match method {
        notification::DidOpenTextDocument::METHOD => {
            parse::<lsp_types::DidOpenTextDocumentParams>(params)
                .map(|p| ws.open(p.text_document.uri, p.text_document.text))
        }
        notification::DidChangeTextDocument::METHOD => {
            parse::<lsp_types::DidChangeTextDocumentParams>(params).map(|p| {
                // The server asks for whole texts: the last change is the document.
                match p.content_changes.into_iter().last() {
                    Some(change) => ws.open(p.text_document.uri, change.text),
                    None => Vec::new(),
                }
            })
        }
        notification::DidSaveTextDocument::METHOD => {
            parse::<lsp_types::DidSaveTextDocumentParams>(params)
                .map(|p| ws.recheck(&p.text_document.uri))
        }
        notification::DidCloseTextDocument::METHOD => {
            parse::<lsp_types::DidCloseTextDocumentParams>(params)
                .map(|p| ws.close(&p.text_document.uri))
        }
        _ => Ok(Vec::new()),
    };
    match published {
        Ok(list) => list
            .into_iter()
            .map(|p| rpc::notification(notification::PublishDiagnostics::METHOD, to_json(p)))
            .collect(),
        Err(e) => vec![rpc::notification(
            notification::LogMessage::METHOD,
            json!({ "type": 1, "message": format!("`{method}`: {e}") }),
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(lines: &[&str]) -> Vec<u8> {
        let mut input = Vec::new();
        for l in lines {
            input.extend_from_slice(format!("Content-Length: {}\r\n\r\n{l}", l.len()).as_bytes());
        }
        input
    }

    /// A request or a notification whose handler panics gets an internal error or a logged
    /// message, and the server answers what follows.
    #[test]
    fn a_panicking_handler_does_not_end_the_server() {
        let input = session(&[
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"textDocument/hover","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","method":"exit"}"#,
        ]);
        let limits = Limits::default();
        let mut reader = rpc::Reader::new(&input[..], &limits);
        let mut server = Server {
            ws: Workspace::new(limits),
            state: State::Waiting,
            panic_on: Some("textDocument/hover".into()),
        };
        let mut out = Vec::new();
        let exit = serve_with(&mut reader, &mut out, &mut server).expect("in memory");
        assert_eq!(exit, 0, "shut down, then exit");
        let text = String::from_utf8(out).expect("utf-8");
        let answers: Vec<Value> = text
            .split("Content-Length: ")
            .filter_map(|m| m.split_once("\r\n\r\n"))
            .map(|(_, body)| serde_json::from_str(body).expect("JSON"))
            .collect();
        assert_eq!(answers.len(), 4, "{text}");
        assert_eq!(answers[0]["id"], 0);
        assert_eq!(answers[1]["id"], 1);
        assert_eq!(answers[1]["error"]["code"], code::INTERNAL_ERROR);
        let message = answers[1]["error"]["message"].as_str().unwrap_or("");
        assert!(
            message.starts_with("`textDocument/hover` failed: an internal error")
                && message.ends_with("a test's panic in `textDocument/hover`"),
            "{message}"
        );
        assert_eq!(answers[2]["method"], "window/logMessage");
        assert_eq!(answers[2]["params"]["type"], 1);
        assert_eq!(answers[3]["id"], 2);
        assert_eq!(answers[3]["result"], Value::Null);
    }

    #[test]
    fn guard_gives_the_panic_message() {
        assert_eq!(guard(|| 1), Ok(1));
        assert_eq!(guard(|| -> u8 { panic!("boom") }), Err("boom".to_string()));
        let n = 3;
        assert_eq!(
            guard(|| -> u8 { panic!("n = {n}") }),
            Err("n = 3".to_string())
        );
    }
}
