#!/usr/bin/env node
// A Node.js client of the interview suite: loads the .proto files at run time (@grpc/proto-loader),
// calls the public InterviewService with @grpc/grpc-js, completes one interview and prints a JSON
// summary on stdout. Used by tests/e2e/test_node_client.py; also a worked example for other platforms.
//
//   node tests/e2e/node/client.js --target 127.0.0.1:50051 --concept coffee_jtbd \
//        --max-turns 4 --answers answers.json
//
// answers.json is a JSON array of answer strings; turn n answers with element (n - 1) modulo its length.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', '..', 'protos');
// google/protobuf/*.proto as bundled with proto-loader's protobufjs (timestamp.proto is built in).
const GOOGLE_PROTOS = path.dirname(require.resolve('protobufjs/package.json'));
const TURN_DEADLINE_MS = 60000;

function parseArgs(argv) {
  const args = { target: '', concept: '', maxTurns: 5, answers: '' };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`missing value for ${key}`);
    if (key === '--target') args.target = value;
    else if (key === '--concept') args.concept = value;
    else if (key === '--max-turns') args.maxTurns = Number.parseInt(value, 10);
    else if (key === '--answers') args.answers = value;
    else throw new Error(`unknown argument ${key}`);
  }
  if (!args.target || !args.concept || !args.answers) {
    throw new Error('usage: client.js --target HOST:PORT --concept ID --answers FILE [--max-turns N]');
  }
  return args;
}

function loadService() {
  const definition = protoLoader.loadSync('interview/orchestrator/v1/orchestrator.proto', {
    includeDirs: [PROTO_ROOT, GOOGLE_PROTOS],
    keepCase: true, // field names as in the .proto (session_id, turn_number)
    longs: String,
    enums: String, // enum values by name (SESSION_STATUS_COMPLETED)
    defaults: true, // unset scalars as their defaults (should_continue: false)
    oneofs: true,
  });
  const loaded = grpc.loadPackageDefinition(definition);
  return loaded.interview.orchestrator.v1.InterviewService;
}

// Promisified unary call with an optional deadline.
function unary(client, method, request, deadlineMs) {
  const options = deadlineMs ? { deadline: new Date(Date.now() + deadlineMs) } : {};
  return new Promise((resolve, reject) => {
    client[method](request, options, (err, response) => (err ? reject(err) : resolve(response)));
  });
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const answers = JSON.parse(fs.readFileSync(args.answers, 'utf8'));
  const InterviewService = loadService();
  const client = new InterviewService(args.target, grpc.credentials.createInsecure());

  const concepts = await unary(client, 'ListConcepts', { page_size: 100 });
  const concept = concepts.concepts.find((c) => c.id === args.concept);
  if (!concept) throw new Error(`concept ${args.concept} not offered by ${args.target}`);

  const created = await unary(client, 'CreateSession', {
    concept_id: args.concept,
    max_turns: args.maxTurns,
    metadata: { client: 'node' },
  });
  const sessionId = created.session.session_id;

  // A bad request first: the status code and message come back, and nothing changes.
  let invalid = null;
  try {
    await unary(client, 'SubmitTurn', { session_id: sessionId, turn_number: 1, text: '' }, TURN_DEADLINE_MS);
  } catch (err) {
    invalid = { code: err.code, code_name: grpc.status[err.code], details: err.details };
  }

  const turns = [];
  for (let i = 0; i < args.maxTurns; i += 1) {
    const { session } = await unary(client, 'GetSession', { session_id: sessionId });
    const turnNumber = session.turn_count + 1;
    const text = answers[(turnNumber - 1) % answers.length];
    const { result } = await unary(
      client,
      'SubmitTurn',
      { session_id: sessionId, turn_number: turnNumber, text },
      TURN_DEADLINE_MS,
    );
    turns.push({
      turn_number: result.turn_number,
      should_continue: result.should_continue,
      strategy_selected: result.strategy_selected,
      phase: result.phase,
      nodes_added: result.nodes_added.length,
      next_question: result.next_question,
    });
    if (!result.should_continue) break;
  }

  const { session, transcript } = await unary(client, 'GetSession', { session_id: sessionId });
  const graph = await unary(client, 'GetSessionGraph', { session_id: sessionId });
  const exported = await unary(client, 'ExportSession', { session_id: sessionId, format: 'EXPORT_FORMAT_JSON' });
  const document = JSON.parse(exported.content);
  client.close();

  const summary = {
    target: args.target,
    session_id: sessionId,
    concept_id: session.concept_id,
    methodology: session.methodology,
    opening_question: created.opening_question,
    invalid_argument: invalid,
    turns,
    status: session.status,
    turn_count: session.turn_count,
    termination_reason: session.termination_reason,
    transcript_length: transcript.length,
    node_labels: graph.nodes.map((n) => n.label).sort(),
    edge_count: graph.edges.length,
    export: { content_type: exported.content_type, turns: document.turns.length },
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

main().catch((err) => {
  const code = err && err.code !== undefined ? ` (${grpc.status[err.code]}: ${err.details})` : '';
  process.stderr.write(`client failed${code}: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
