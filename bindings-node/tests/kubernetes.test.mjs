// Objects from @kubernetes/client-node (1.x): its model classes (V1Pod,
// V1Deployment, ...) are accepted as they are. The API converts them as the
// client's own ObjectSerializer does: attributes by their wire names
// (`baseName`), unset ones left out, Dates as ISO 8601 text. Custom
// resources (JobSet, ...) come back from CustomObjectsApi as plain objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';

import * as wl from 'workload-lens';
import { JOBSET_TEXT, PODS_TEXT } from '../testing/fixtures.mjs';

const JOBSET = wl.parse(JOBSET_TEXT)[0];
const PLAIN_PODS = wl.parse(PODS_TEXT)[0].items;
// As the client returns them (CoreV1Api.listNamespacedPod gives V1Pod models).
const MODEL_PODS = PLAIN_PODS.map((p) => k8s.loadYaml(JSON.stringify(p)));

test('the pods really are client models', () => {
  assert.equal(MODEL_PODS[0].constructor.name, 'V1Pod');
  assert.equal(MODEL_PODS[0].metadata.constructor.name, 'V1ObjectMeta');
});

test('client models give the same results as plain objects', () => {
  assert.deepEqual(wl.resolve(JOBSET, { pods: MODEL_PODS }), wl.resolve(JOBSET, { pods: PLAIN_PODS }));
  const def = wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet');
  assert.deepEqual(def.attributePods(JOBSET, MODEL_PODS), def.attributePods(JOBSET, PLAIN_PODS));
  assert.deepEqual(def.gangGroups(JOBSET, MODEL_PODS), def.gangGroups(JOBSET, PLAIN_PODS));
  const list = new k8s.V1PodList();
  list.apiVersion = 'v1';
  list.kind = 'PodList';
  list.items = MODEL_PODS;
  assert.deepEqual(wl.resolve(JOBSET, { pods: list }), wl.resolve(JOBSET, { pods: PLAIN_PODS }));
});

test('a built-in workload as a client model resolves like its YAML', () => {
  const yaml = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, creationTimestamp: "2024-05-06T07:08:09Z"}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx
        resources: {limits: {nvidia.com/gpu: "1"}, requests: {cpu: 500m, memory: 1Gi}}
status: {replicas: 3, readyReplicas: 3, availableReplicas: 3}
`;
  const model = k8s.loadYaml(yaml);
  assert.equal(model.constructor.name, 'V1Deployment');
  assert.ok(model.metadata.creationTimestamp instanceof Date);
  const fromModel = wl.resolve(model);
  const fromYaml = wl.resolve(yaml);
  assert.equal(fromModel.totals.resources.gpu, 3);
  assert.deepEqual(fromModel.components, fromYaml.components);
  assert.deepEqual(fromModel.totals, fromYaml.totals);
  // The conversion is the client's own: Dates as toISOString().
  assert.deepEqual(wl.evaluate('.metadata.creationTimestamp', model), ['2024-05-06T07:08:09.000Z']);
  // dumpYaml writes the object through the client's ObjectSerializer.
  assert.deepEqual(wl.evaluate('.', model), wl.parse(k8s.dumpYaml(model)));
});

test('attributes whose JS name differs from the wire name are written by their wire name', () => {
  const props = new k8s.V1JSONSchemaProps();
  props.type = 'object';
  props._default = { a: 1 };
  props.x_kubernetes_preserve_unknown_fields = true;
  const [out] = wl.evaluate('.', { schema: props });
  assert.deepEqual(out.schema.default, { a: 1 });
  assert.equal(out.schema['x-kubernetes-preserve-unknown-fields'], true);
  assert.equal('_default' in out.schema, false);
});
