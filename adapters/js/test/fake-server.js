// A stand-in for the mock's ock/1 endpoints: records every request, answers from a table.
import http from 'node:http';

export async function startFake(routes) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const entry = { method: req.method, url: req.url, headers: req.headers, body };
      requests.push(entry);
      const route = routes[`${req.method} ${req.url}`];
      if (!route) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"no route"}');
        return;
      }
      const reply = typeof route === 'function' ? await route(entry) : route;
      if (reply.hang) return; // never answered: the client must give up by itself
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

export const SESSION = {
  protocol: 'ock/1',
  scenario: 'tool-single-call',
  trace_id: 'ock-c273e4a5',
  prompts: ['What is the weather in Paris?', 'Thanks!'],
  config: { max_iterations: 10, streaming: false },
  providers: [{ name: 'primary', api: 'openai', base_url: 'http://127.0.0.1:1/p/primary/v1', model: 'gpt-ock', priority: 1 }],
  tools: [{ name: 'get_weather', description: 'Current weather', input_schema: { type: 'object' } }],
};
