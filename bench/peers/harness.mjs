// Records what a peer's search/replace spec asks of its engine, without the engine.
//
// Used by bench/peers/convert.py: the spec file (its imports removed, its few type
// annotations stripped) is appended to this prelude and run by node. The engine entry points
// are stubs that return placeholder values; `expect(...)` records every assertion made on
// them. Nothing of the peer's engine runs. Prints one JSON document on stdout.

const tests = [];
const stack = [];
let current = null;

class Placeholder {
  constructor(kind, call) {
    this.kind = kind;
    this.call = call;
  }
  toJSON() {
    return { $placeholder: this.kind, call: this.call };
  }
}

function record(entry) {
  if (current) current.expects.push(entry);
}

function chain(actual, path) {
  return new Proxy(function () {}, {
    get(_target, prop) {
      if (prop === "then" || typeof prop === "symbol") return undefined;
      return chain(actual, [...path, prop]);
    },
    apply(_target, _this, args) {
      record({ actual, path, args });
      return chain(actual, path);
    },
  });
}

globalThis.expect = (actual) => chain(actual, []);
globalThis.expect.fail = (message) => {
  record({ fail: String(message), after_call: current ? current.calls.length - 1 : -1 });
  throw new Error("expect.fail");
};
globalThis.describe = (name, fn) => {
  stack.push({ name, before: [] });
  fn();
  stack.pop();
};
globalThis.beforeEach = (fn) => stack[stack.length - 1].before.push(fn);
globalThis.it = (name, fn) => {
  tests.push({
    name: [...stack.map((s) => s.name), name].join(" > "),
    before: stack.flatMap((s) => s.before),
    fn,
  });
};
globalThis.it.skip = () => {};
globalThis.describe.skip = () => {};

function callRecord(entry) {
  const index = current.calls.length;
  current.calls.push(entry);
  return index;
}

// Roo Code's strategy class.
globalThis.MultiSearchReplaceDiffStrategy = class {
  constructor(fuzzyThreshold, bufferLines) {
    this.options = { fuzzyThreshold: fuzzyThreshold ?? null, bufferLines: bufferLines ?? null };
  }
  async applyDiff(original, diff, startLine, endLine) {
    const i = callRecord({
      fn: "applyDiff", original, diff, startLine: startLine ?? null, endLine: endLine ?? null,
      options: this.options,
    });
    return {
      success: new Placeholder("success", i),
      content: new Placeholder("content", i),
      error: new Placeholder("error", i),
    };
  }
  validateMarkerSequencing(diff) {
    const i = callRecord({ fn: "validateMarkerSequencing", diff });
    return { success: new Placeholder("success", i), error: new Placeholder("error", i) };
  }
};

// Cline's constructNewFileContent.
globalThis.constructNewFileContent = async (diff, original, isFinal, version) => {
  const i = callRecord({
    fn: "constructNewFileContent", diff, original, isFinal: isFinal ?? null, version: version ?? null,
  });
  return { newContent: new Placeholder("content", i) };
};

globalThis.__runRecordedTests = async () => {
  const out = [];
  for (const t of tests) {
    current = { name: t.name, calls: [], expects: [] };
    try {
      for (const b of t.before) await b();
      await t.fn();
    } catch (e) {
      current.error = String(e);
    }
    out.push(current);
  }
  process.stdout.write(JSON.stringify(out));
};
