//! The API server, with the admin kubeconfig of a test cluster (the live
//! test cluster's or the simulated cluster's): objects created and changed
//! as a user would, for the tests that watch the CLI follow them.

use std::path::Path;

use serde_json::Value;

/// Create and change objects through the API with the admin token.
pub struct Api {
    rt: tokio::runtime::Runtime,
    client: kube::Client,
}

impl Api {
    pub fn new(kubeconfig: &Path) -> Api {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client = rt.block_on(async {
            let kc = kube::config::Kubeconfig::read_from(kubeconfig).unwrap();
            let config = kube::Config::from_custom_kubeconfig(kc, &Default::default())
                .await
                .unwrap();
            kube::Client::try_from(config).unwrap()
        });
        Api { rt, client }
    }

    pub fn send(&self, method: &str, path: &str, content_type: &str, body: &Value) -> Value {
        self.try_send(method, path, content_type, body).unwrap()
    }

    pub fn try_send(
        &self,
        method: &str,
        path: &str,
        content_type: &str,
        body: &Value,
    ) -> Result<Value, kube::Error> {
        let req = http::Request::builder()
            .method(method)
            .uri(path)
            .header("Content-Type", content_type)
            .body(serde_json::to_vec(body).unwrap())
            .unwrap();
        let text = self.rt.block_on(self.client.request_text(req))?;
        Ok(serde_json::from_str(&text).unwrap())
    }

    /// A GET, with no body.
    #[allow(dead_code)] // not every test that includes this module reads
    pub fn try_get(&self, path: &str) -> Result<Value, kube::Error> {
        let req = http::Request::get(path).body(Vec::new()).unwrap();
        let text = self.rt.block_on(self.client.request_text(req))?;
        Ok(serde_json::from_str(&text).unwrap())
    }
}
