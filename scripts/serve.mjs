// A small static file server for web/: the right MIME types (application/wasm for streaming compilation),
// no special headers needed (no COOP/COEP), loopback only. Used by `npm start` and the browser tests.
//   node scripts/serve.mjs [--port N] [--root DIR]     (PORT env also accepted; 0 picks a free port)
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.safetensors': 'application/octet-stream',
  '.bpe': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** Starts the server; resolves to {server, url}. */
export function serve({ root, port = 8080, host = '127.0.0.1' } = {}) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      let path = normalize(join(base, decodeURIComponent(url.pathname)));
      if (path !== base && !path.startsWith(base + sep)) {
        res.writeHead(403).end('forbidden');
        return;
      }
      let info = await stat(path).catch(() => null);
      if (info?.isDirectory()) {
        path = join(path, 'index.html');
        info = await stat(path).catch(() => null);
      }
      if (!info?.isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`not found: ${url.pathname}`);
        return;
      }
      res.writeHead(200, {
        'Content-Type': MIME[extname(path).toLowerCase()] ?? 'application/octet-stream',
        'Content-Length': info.size,
        'Cache-Control': 'no-cache',
      });
      if (req.method === 'HEAD') res.end();
      else createReadStream(path).pipe(res);
    } catch (err) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(err?.message ?? err));
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      ok({ server, url: `http://${host}:${actual}/` });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const root = opt('--root', fileURLToPath(new URL('../web/', import.meta.url)));
  let port = Number(opt('--port', process.env.PORT ?? 8080));
  for (let attempt = 0; ; attempt++) {
    try {
      const { url } = await serve({ root, port });
      console.log(`Blockscope is serving ${root}`);
      console.log(`Open the lesson page: ${url}`);
      break;
    } catch (err) {
      if (err.code !== 'EADDRINUSE' || attempt >= 20 || port === 0) throw err;
      port += 1;
    }
  }
}
