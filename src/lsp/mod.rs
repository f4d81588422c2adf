//! `rules lsp`: a language server over stdio, on `lsp-server` (as rust-analyzer uses it). It
//! checks the whole game a file belongs to with the real checker, the editor's unsaved buffers
//! overlaid on the files on disk, and answers from the game's names: hover, go to definition,
//! references, completion, document symbols, and formatting through `rules fmt`.
//!
//! A request never ends the server: a file that does not parse still gets its diagnostics,
//! and what the names of the rest of the game can answer.

mod game;
mod index;
mod text;

use game::Workspace;
use lsp_server::{Connection, Message, Notification, Request, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    notification, request, CompletionOptions, HoverProviderCapability, OneOf, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind,
};

/// Serve on stdin/stdout until the editor says `exit`.
pub fn run() -> Result<(), String> {
    let (connection, io) = Connection::stdio();
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
    let caps = serde_json::to_value(caps).map_err(|e| e.to_string())?;
    connection.initialize(caps).map_err(|e| e.to_string())?;
    let mut ws = Workspace::default();
    serve(&connection, &mut ws)?;
    drop(connection);
    io.join().map_err(|e| e.to_string())
}

fn serve(connection: &Connection, ws: &mut Workspace) -> Result<(), String> {
    for msg in &connection.receiver {
        match msg {
            Message::Request(req) => {
                if connection
                    .handle_shutdown(&req)
                    .map_err(|e| e.to_string())?
                {
                    return Ok(());
                }
                let resp = answer(ws, req);
                send(connection, Message::Response(resp))?;
            }
            Message::Notification(n) => {
                for out in notify(ws, n) {
                    send(connection, Message::Notification(out))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

fn send(connection: &Connection, msg: Message) -> Result<(), String> {
    connection.sender.send(msg).map_err(|e| e.to_string())
}

/// A request's answer: the result, or `null` when there is none; malformed parameters are an
/// `InvalidParams` error, never the end of the server.
fn answer(ws: &mut Workspace, req: Request) -> Response {
    let id = req.id.clone();
    let result = match req.method.as_str() {
        request::HoverRequest::METHOD => parse(req).map(|p| to_json(ws.hover(p))),
        request::GotoDefinition::METHOD => parse(req).map(|p| to_json(ws.definition(p))),
        request::References::METHOD => parse(req).map(|p| to_json(ws.references(p))),
        request::Completion::METHOD => parse(req).map(|p| to_json(ws.completion(p))),
        request::DocumentSymbolRequest::METHOD => parse(req).map(|p| to_json(ws.symbols(p))),
        request::Formatting::METHOD => match parse(req).map(|p| ws.format(p)) {
            Ok(Ok(edits)) => Ok(to_json(edits)),
            // A file that does not parse is not formatted: the editor keeps its text.
            Ok(Err(e)) => {
                return Response::new_err(id, lsp_server::ErrorCode::RequestFailed as i32, e)
            }
            Err(e) => Err(e),
        },
        _ => {
            return Response::new_err(
                id,
                lsp_server::ErrorCode::MethodNotFound as i32,
                format!("`{}` is not supported", req.method),
            )
        }
    };
    match result {
        Ok(v) => Response::new_ok(id, v),
        Err(e) => Response::new_err(id, lsp_server::ErrorCode::InvalidParams as i32, e),
    }
}

fn parse<P: serde::de::DeserializeOwned>(req: Request) -> Result<P, String> {
    serde_json::from_value(req.params).map_err(|e| format!("bad parameters: {e}"))
}

fn to_json<T: serde::Serialize>(v: T) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

/// Open, change, save and close: each re-checks the game and publishes its diagnostics.
fn notify(ws: &mut Workspace, n: Notification) -> Vec<Notification> {
    let method = n.method.clone();
    let published = match method.as_str() {
        notification::DidOpenTextDocument::METHOD => {
            serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
                .ok()
                .map(|p| ws.open(p.text_document.uri, p.text_document.text))
        }
        notification::DidChangeTextDocument::METHOD => {
            serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params)
                .ok()
                .and_then(|p| {
                    let text = p.content_changes.into_iter().last()?.text;
                    Some(ws.open(p.text_document.uri, text))
                })
        }
        notification::DidSaveTextDocument::METHOD => {
            serde_json::from_value::<lsp_types::DidSaveTextDocumentParams>(n.params)
                .ok()
                .map(|p| ws.recheck(&p.text_document.uri))
        }
        notification::DidCloseTextDocument::METHOD => {
            serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                .ok()
                .map(|p| ws.close(&p.text_document.uri))
        }
        _ => None,
    };
    published
        .unwrap_or_default()
        .into_iter()
        .map(|p| Notification::new(notification::PublishDiagnostics::METHOD.to_string(), p))
        .collect()
}
