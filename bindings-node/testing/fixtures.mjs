// Shared inputs of the tests (not a test file: tests/ holds only tests).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PKG = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = join(PKG, '..');
export const read = (...p) => readFileSync(join(REPO, ...p), 'utf8');

export const JOBSET_TEXT = read('examples', 'jobset.yaml');
export const PODS_TEXT = read('examples', 'jobset-pods.yaml');

export const TRAINER_TEXT = `apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: example-com-trainer-v1}
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind: {group: example.com, version: v1, kind: Trainer}
      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: '.spec.replicas // 1'}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
`;

export const TRAINER = {
  apiVersion: 'example.com/v1',
  kind: 'Trainer',
  metadata: { name: 't' },
  spec: {
    replicas: 2,
    template: { spec: { containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': 8 } } }] } },
  },
  status: { phase: 'Running' },
};
