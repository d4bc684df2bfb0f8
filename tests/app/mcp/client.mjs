// Drives `pyrometer-cli mcp` with the official MCP client (@modelcontextprotocol/sdk, installed by
// scripts/setup under build/mcp-client) through one session, and prints what every call returned
// as one JSON object, for tst_cli_mcp to check against pyrometer-cli's own output.
//   node client.mjs CLIENT_DIR CLI TRACE BIG_TRACE BAD_TRACE
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [clientDir, cli, trace, bigTrace, badTrace] = process.argv.slice(2);
const sdk = (file) => import(pathToFileURL(path.join(clientDir, 'node_modules/@modelcontextprotocol/sdk/dist/esm', file)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');

const transport = new StdioClientTransport({ command: cli, args: ['mcp', '--threads', '3'], stderr: 'pipe' });
let serverLog = '';
transport.stderr.on('data', (chunk) => { serverLog += chunk.toString(); });
const client = new Client({ name: 'pyrometer-test', version: '1.0.0' });
await client.connect(transport);

const out = { server: client.getServerVersion() };
out.tools = (await client.listTools()).tools.map((tool) => tool.name);

const call = (name, args, options) => client.callTool({ name, arguments: args }, undefined, options);
const opened = await call('open_trace', { path: trace });
out.open = opened.structuredContent;
const handle = opened.structuredContent.handle;
out.summary = (await call('summary', { handle })).structuredContent;
// Asked together: the server answers calls at once on its pool.
const [ops, criticalPath] = await Promise.all([call('ops', { handle }), call('critical_path', { handle })]);
out.ops = ops.structuredContent;
out.opsText = ops.content[0].text;
out.criticalPath = criticalPath.structuredContent;

const bad = await call('open_trace', { path: badTrace });
out.bad = { isError: bad.isError === true, text: bad.content[0].text };

// A long load cancelled at its first progress notification.
const controller = new AbortController();
let progressSeen = 0;
try {
    await call('open_trace', { path: bigTrace }, {
        signal: controller.signal,
        timeout: 600000,
        onprogress: () => { progressSeen += 1; controller.abort('enough'); },
    });
    out.cancel = { rejected: false, progressSeen };
} catch (error) {
    out.cancel = { rejected: true, progressSeen, error: String(error) };
}

out.resources = (await client.listResources()).resources.map((resource) => resource.uri);
const report = await client.readResource({ uri: `pyrometer://documents/${handle}/report.md` });
out.reportMarkdown = report.contents[0].text;

// Wait for the cancelled load to end (the server logs it), then list what is open.
for (let i = 0; i < 600 && !serverLog.includes('cancelled'); ++i)
    await new Promise((resolve) => setTimeout(resolve, 100));
out.documentsAfterCancel = (await call('documents', {})).structuredContent.documents.map((d) => d.handle);

out.close = (await call('close', { handle })).structuredContent;
const closed = await call('ops', { handle });
out.closedCall = { isError: closed.isError === true, text: closed.content[0].text };
const wrong = await call('ops', { handle: 42 });
out.wrongType = { isError: wrong.isError === true, text: wrong.content[0].text };
try {
    await call('no_such_tool', {});
    out.unknownTool = { rejected: false };
} catch (error) {
    out.unknownTool = { rejected: true, error: String(error) };
}

await client.close();
out.serverLog = serverLog;
process.stdout.write(JSON.stringify(out) + '\n');
