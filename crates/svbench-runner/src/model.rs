//! A model endpoint as a [`Responder`]: the bridge from the rollout loop to
//! the OpenAI-compatible client.

use std::sync::Arc;

use crate::client::{CallFailure, ModelClient, TurnRequest};
use crate::rollout::{AssistantTurn, Responder, TurnContext, TurnFailure, TurnFuture};

/// Answers turns by calling a model endpoint.
#[derive(Debug, Clone)]
pub struct ModelResponder {
    client: Arc<ModelClient>,
}

impl ModelResponder {
    /// Wraps a client.
    pub fn new(client: Arc<ModelClient>) -> Self {
        Self { client }
    }

    /// The client (stats, endpoint, sampling parameters).
    pub fn client(&self) -> &Arc<ModelClient> {
        &self.client
    }
}

impl Responder for ModelResponder {
    fn respond<'a>(&'a self, ctx: TurnContext<'a>) -> TurnFuture<'a> {
        Box::pin(async move {
            let turn = TurnRequest {
                messages: ctx.messages,
                tools: ctx.tools,
                example_id: ctx.example_id,
                rollout_index: ctx.rollout_index,
                turn: ctx.turn,
            };
            match self.client.complete(turn).await {
                Ok(r) => Ok(AssistantTurn {
                    message: r.message,
                    reasoning: r.reasoning,
                    record: r.record,
                    truncated: r.truncated,
                    ends_episode: false,
                }),
                Err(CallFailure::Sample(e)) => Err(TurnFailure::Sample(e)),
                Err(CallFailure::Fatal(e)) => Err(TurnFailure::Fatal(e)),
            }
        })
    }
}
