// Every public method of @honcho-ai/sdk against the Honcho at HONCHO_URL.
//
// Run by tests/fake/test_sdk_ts.py. Methods are found on the SDK's class prototypes,
// not listed by hand; each has one call below asserting what it answers. Prints one
// JSON object: {methods: [...], results: {"Class.method": {ok, error, status}}}.
'use strict';

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const sdk = require('@honcho-ai/sdk');

const CLASSES = [
  'Honcho',
  'Peer',
  'Session',
  'Scope',
  'ConclusionsView',
  'WorkspaceConclusions',
  'SessionContext',
];

function publicMethods(cls) {
  return Object.entries(Object.getOwnPropertyDescriptors(cls.prototype))
    .filter(([name, d]) => typeof d.value === 'function' && name !== 'constructor')
    .filter(([name]) => !name.startsWith('_') && name !== 'toString')
    .map(([name]) => `${cls.name}.${name}`);
}

async function seed() {
  const honcho = new sdk.Honcho({
    baseURL: process.env.HONCHO_URL,
    workspaceId: `ts-${crypto.randomUUID().slice(0, 10)}`,
    maxRetries: 0,
  });
  const alice = await honcho.peer('alice');
  const bob = await honcho.peer('bob');
  const session = await honcho.session('s1');
  await session.addPeers([alice, bob]);
  const written = await session.addMessages([
    alice.message('I love green tea in the morning'),
    bob.message('Green tea is lovely'),
    alice.message('I live in Oslo'),
  ]);
  const conclusions = await (await alice.conclusions.list()).toArray();
  return { honcho, alice, bob, session, written, conclusion: conclusions[0] };
}

const ids = (items) => items.map((item) => item.id).sort();
const contents = (items) => items.map((item) => item.content);
const readAll = async (stream) => {
  let text = '';
  for await (const chunk of stream) text += chunk;
  return text;
};

const CALLS = {
  'Honcho.peer': async (w) => {
    const carol = await w.honcho.peer('carol', { metadata: { role: 'guest' } });
    assert.deepEqual(await carol.getMetadata(), { role: 'guest' });
  },
  'Honcho.session': async (w) => assert.equal((await w.honcho.session('s2')).id, 's2'),
  'Honcho.peers': async (w) =>
    assert.deepEqual(ids(await (await w.honcho.peers()).toArray()), ['alice', 'bob']),
  'Honcho.sessions': async (w) =>
    assert.deepEqual(ids(await (await w.honcho.sessions()).toArray()), ['s1']),
  'Honcho.workspaces': async (w) =>
    assert.ok((await (await w.honcho.workspaces()).toArray()).includes(w.honcho.workspaceId)),
  'Honcho.getMetadata': async (w) => {
    await w.honcho.setMetadata({ team: 'tea' });
    assert.deepEqual(await w.honcho.getMetadata(), { team: 'tea' });
  },
  'Honcho.getConfiguration': async (w) => {
    await w.honcho.setConfiguration({ reasoning: { enabled: false } });
    assert.equal((await w.honcho.getConfiguration()).reasoning.enabled, false);
  },
  'Honcho.refresh': async (w) => {
    await w.honcho.refresh();
    assert.deepEqual(w.honcho.metadata, {});
  },
  'Honcho.deleteWorkspace': async (w) => {
    await w.session.delete();
    await w.honcho.deleteWorkspace(w.honcho.workspaceId);
    const left = await (await w.honcho.workspaces()).toArray();
    assert.ok(!left.includes(w.honcho.workspaceId));
  },
  'Honcho.search': async (w) =>
    assert.equal(contents(await w.honcho.search('Oslo'))[0], 'I live in Oslo'),
  'Honcho.chat': async (w) => {
    assert.match(await w.honcho.chat('who lives in Oslo?'), /Oslo/);
    const answer = await w.honcho.chat('who lives in Oslo?', { includeEvidence: true });
    assert.ok(contents(answer.evidence.conclusions).includes('alice lives in Oslo'));
  },
  'Honcho.chatStream': async (w) =>
    assert.match(await readAll(await w.honcho.chatStream('who lives in Oslo?')), /Oslo/),
  'Honcho.queueStatus': async (w) => {
    const status = await w.honcho.queueStatus();
    assert.equal(status.pendingWorkUnits ?? status.pending_work_units, 0);
  },
  'Honcho.scheduleDream': async (w) => {
    await w.honcho.scheduleDream({ observer: 'alice' });
    assert.ok((await w.alice.getCard()).length > 0);
  },
  'Honcho.scope': async (w) => assert.equal((await w.honcho.scope('work')).id, 'work'),
  'Honcho.scopes': async (w) => {
    await w.honcho.scope('work');
    assert.deepEqual(ids(await (await w.honcho.scopes()).toArray()), ['work']);
  },
  'Honcho.getScope': async (w) => {
    await w.honcho.scope('work');
    assert.equal((await w.honcho.getScope('work')).id, 'work');
  },
  'Scope.addSessions': async (w) => {
    const scope = await w.honcho.scope('work');
    await scope.addSessions(['s1']);
    assert.deepEqual(ids(await (await scope.sessions()).toArray()), ['s1']);
    assert.ok('s1' in (await scope.status()).backfillStatus);
    await scope.removeSession('s1');
    assert.deepEqual(await (await scope.sessions()).toArray(), []);
  },
  'Peer.chat': async (w) => {
    assert.match(await w.alice.chat('what tea does alice drink?'), /green tea/);
    const answer = await w.alice.chat('what tea?', { includeEvidence: true });
    assert.deepEqual(contents(answer.evidence.conclusions), [
      'alice loves green tea in the morning',
    ]);
    assert.deepEqual(answer.evidence.conclusions[0].source_ids, []);
  },
  'Peer.chatStream': async (w) => {
    const stream = await w.alice.chatStream('what tea?', { includeEvidence: true });
    assert.match(await readAll(stream), /green tea/);
    assert.ok(stream.evidence.conclusions.length > 0);
  },
  'Peer.representation': async (w) => assert.match(await w.alice.representation(), /green tea/),
  'Peer.context': async (w) => {
    const context = await w.alice.context();
    assert.equal(context.peerId, 'alice');
    assert.match(context.representation, /Oslo/);
  },
  'Peer.getCard': async (w) => {
    await w.alice.setCard(['Name: Alice']);
    assert.deepEqual(await w.alice.getCard(), ['Name: Alice']);
    assert.deepEqual(await w.alice.card(), ['Name: Alice']);
  },
  'Peer.getMetadata': async (w) => {
    await w.alice.setMetadata({ lang: 'en' });
    assert.deepEqual(await w.alice.getMetadata(), { lang: 'en' });
  },
  'Peer.getConfiguration': async (w) => {
    await w.alice.setConfiguration({ observeMe: false });
    const config = await w.alice.getConfiguration();
    assert.equal(config.observeMe ?? config.observe_me, false);
  },
  'Peer.refresh': async (w) => {
    await w.alice.refresh();
    assert.deepEqual(w.alice.metadata, {});
  },
  'Peer.search': async (w) =>
    assert.equal(contents(await w.alice.search('Oslo'))[0], 'I live in Oslo'),
  'Peer.sessions': async (w) =>
    assert.deepEqual(ids(await (await w.alice.sessions()).toArray()), ['s1']),
  'Peer.message': async (w) => assert.equal(w.alice.message('hi').peerId ?? 'alice', 'alice'),
  'Peer.conclusionsOf': async (w) => assert.equal(w.alice.conclusionsOf('bob').observed, 'bob'),
  'Session.addMessages': async (w) => {
    await w.session.addMessages([w.bob.message('Oslo is cold')]);
    const listed = contents(await (await w.session.messages()).toArray());
    assert.equal(listed.length, 4);
    assert.equal(listed[3], 'Oslo is cold');
  },
  'Session.getMessage': async (w) =>
    assert.equal((await w.session.getMessage(w.written[2].id)).content, 'I live in Oslo'),
  'Session.updateMessage': async (w) => {
    const updated = await w.session.updateMessage(w.written[0], { mood: 'happy' });
    assert.deepEqual(updated.metadata, { mood: 'happy' });
  },
  'Session.addPeers': async (w) => {
    await w.session.addPeers(['carol']);
    assert.deepEqual(ids(await w.session.peers()), ['alice', 'bob', 'carol']);
    await w.session.removePeers(['carol']);
    await w.session.setPeers(['alice']);
    assert.deepEqual(ids(await w.session.peers()), ['alice']);
  },
  'Session.getPeerConfiguration': async (w) => {
    await w.session.setPeerConfiguration('bob', { observeOthers: true });
    const config = await w.session.getPeerConfiguration('bob');
    assert.equal(config.observeOthers ?? config.observe_others, true);
  },
  'Session.getMetadata': async (w) => {
    await w.session.setMetadata({ topic: 'tea' });
    assert.deepEqual(await w.session.getMetadata(), { topic: 'tea' });
  },
  'Session.getConfiguration': async (w) => {
    await w.session.setConfiguration({ summary: { enabled: false } });
    assert.equal((await w.session.getConfiguration()).summary.enabled, false);
  },
  'Session.refresh': async (w) => {
    await w.session.refresh();
    assert.deepEqual(w.session.metadata, {});
  },
  'Session.context': async (w) => {
    const context = await w.session.context({ peerTarget: 'alice' });
    assert.equal(context.messages.length, 3);
    assert.match(context.peerRepresentation, /Oslo/);
  },
  'SessionContext.toOpenAI': async (w) => {
    const context = await w.session.context();
    assert.equal(context.toOpenAI('bob').length, 3);
    assert.equal(context.toAnthropic('bob')[0].role, 'user');
  },
  'Session.summaries': async (w) => {
    const summaries = await w.session.summaries();
    assert.equal(summaries.id, 's1');
    assert.equal(summaries.shortSummary, null);
  },
  'Session.search': async (w) =>
    assert.equal(contents(await w.session.search('Oslo'))[0], 'I live in Oslo'),
  'Session.representation': async (w) =>
    assert.match(await w.session.representation('alice'), /Oslo/),
  'Session.queueStatus': async (w) => {
    const status = await w.session.queueStatus();
    assert.equal(status.pendingWorkUnits ?? status.pending_work_units, 0);
  },
  'Session.clone': async (w) => {
    const clone = await w.session.clone();
    assert.notEqual(clone.id, 's1');
    assert.equal((await (await clone.messages()).toArray()).length, 3);
  },
  'Session.uploadFile': async (w) => {
    const file = {
      filename: 'notes.txt',
      content: Buffer.from('uploaded tea notes'),
      content_type: 'text/plain',
    };
    assert.deepEqual(contents(await w.session.uploadFile(file, 'alice')), ['uploaded tea notes']);
  },
  'Session.delete': async (w) => {
    await w.session.delete();
    assert.deepEqual(await (await w.honcho.sessions()).toArray(), []);
  },
  'ConclusionsView.list': async (w) => {
    const listed = await (await w.alice.conclusions.list()).toArray();
    assert.deepEqual(contents(listed).sort(), [
      'alice lives in Oslo',
      'alice loves green tea in the morning',
    ]);
    assert.ok(listed.every((c) => c.timesDerived === 1 && c.sourceIds === null));
  },
  'ConclusionsView.query': async (w) =>
    assert.equal((await w.alice.conclusions.query('Oslo'))[0].content, 'alice lives in Oslo'),
  'ConclusionsView.create': async (w) => {
    const view = w.alice.conclusionsOf('bob');
    const [made] = await view.create({ content: 'bob likes tea' });
    assert.equal(made.observedId, 'bob');
    await view.delete(made.id);
    assert.deepEqual(await (await view.list()).toArray(), []);
  },
  'ConclusionsView.get': async (w) =>
    assert.equal((await w.alice.conclusions.get(w.conclusion.id)).id, w.conclusion.id),
  'ConclusionsView.getMany': async (w) =>
    assert.deepEqual(ids(await w.alice.conclusions.getMany([w.conclusion.id, 'A'.repeat(21)])), [
      w.conclusion.id,
    ]),
  'ConclusionsView.derived': async (w) =>
    assert.deepEqual(await (await w.alice.conclusions.derived(w.conclusion.id)).toArray(), []),
  'ConclusionsView.representation': async (w) =>
    assert.match(await w.alice.conclusions.representation(), /Oslo/),
  'WorkspaceConclusions.list': async (w) =>
    assert.equal((await (await w.honcho.conclusions.list()).toArray()).length, 2),
  'WorkspaceConclusions.get': async (w) =>
    assert.equal((await w.honcho.conclusions.get(w.conclusion.id)).timesDerived, 1),
  'WorkspaceConclusions.getMany': async (w) =>
    assert.equal((await w.honcho.conclusions.getMany([w.conclusion.id])).length, 1),
};

// Setters, removals and the like are called by the call of their getter or adder.
const ALSO = {
  'Honcho.setMetadata': 'Honcho.getMetadata',
  'Honcho.setConfiguration': 'Honcho.getConfiguration',
  'Scope.sessions': 'Scope.addSessions',
  'Scope.removeSession': 'Scope.addSessions',
  'Scope.status': 'Scope.addSessions',
  'Peer.card': 'Peer.getCard',
  'Peer.setCard': 'Peer.getCard',
  'Peer.setMetadata': 'Peer.getMetadata',
  'Peer.setConfiguration': 'Peer.getConfiguration',
  'Session.messages': 'Session.addMessages',
  'Session.peers': 'Session.addPeers',
  'Session.removePeers': 'Session.addPeers',
  'Session.setPeers': 'Session.addPeers',
  'Session.setPeerConfiguration': 'Session.getPeerConfiguration',
  'Session.setMetadata': 'Session.getMetadata',
  'Session.setConfiguration': 'Session.getConfiguration',
  'SessionContext.toAnthropic': 'SessionContext.toOpenAI',
  'ConclusionsView.delete': 'ConclusionsView.create',
};

async function main() {
  const methods = CLASSES.flatMap((name) => publicMethods(sdk[name]));
  const results = {};
  for (const method of methods) {
    const call = CALLS[method] ?? CALLS[ALSO[method]];
    if (call === undefined) {
      results[method] = { ok: false, error: 'no call for this method', status: null };
      continue;
    }
    try {
      await call(await seed());
      results[method] = { ok: true, error: null, status: null };
    } catch (error) {
      results[method] = {
        ok: false,
        error: `${error.name}: ${error.message}`,
        status: error.status ?? error.statusCode ?? null,
      };
    }
  }
  const stale = Object.keys({ ...CALLS, ...ALSO }).filter((name) => !methods.includes(name));
  process.stdout.write(JSON.stringify({ methods, results, stale }));
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
