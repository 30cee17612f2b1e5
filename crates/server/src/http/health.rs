//! `/healthz`: liveness only. It answers while the process serves HTTP and reveals nothing
//! about apps or UI.

use axum::Json;
use serde::Serialize;

#[derive(Serialize)]
pub struct Health {
    status: &'static str,
}

pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}
