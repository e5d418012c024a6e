import { describe, expect, it } from '@jest/globals';
import { loadGatewayConfig, portOf } from './gateway.config.js';
import { redisTargetOf } from './redis-target.js';

const load = (urls: string) => loadGatewayConfig({ URLS: urls }, []);

describe('URLS', () => {
  it('defaults to http://127.0.0.1:5000', () => {
    const config = loadGatewayConfig({}, []);
    expect(config.url.href).toBe('http://127.0.0.1:5000/');
    expect(portOf(config.url)).toBe(5000);
  });

  it.each([
    ['http://127.0.0.1', 5000],
    ['http://127.0.0.1/', 5000],
    ['http://localhost', 5000],
    ['http://[::1]', 5000],
    ['http://user@127.0.0.1', 5000],
  ])('an address without a port (%s) binds the gateway port 5000, not 80', (urls, port) => {
    expect(portOf(load(urls).url)).toBe(port);
  });

  it.each([
    ['http://127.0.0.1:80', 80],
    ['http://127.0.0.1:80/', 80],
    ['http://[::1]:8080', 8080],
    ['http://127.0.0.1:0', 0],
    ['http://0.0.0.0:5001;http://127.0.0.1:5002', 5001],
  ])('a written-out port is kept (%s)', (urls, port) => {
    expect(portOf(load(urls).url)).toBe(port);
  });

  it('--urls wins over the environment', () => {
    const config = loadGatewayConfig({ URLS: 'http://127.0.0.1:5001' }, ['node', 'main', '--urls', 'http://127.0.0.1']);
    expect(portOf(config.url)).toBe(5000);
  });

  it.each(['not a url', 'https://127.0.0.1:5000', 'ftp://127.0.0.1:21'])(
    'refuses %p with a message naming URLS',
    (urls) => {
      expect(() => load(urls)).toThrow(/URLS is/);
    },
  );
});

describe('NOTES_EXPORT_STEP_MS and MCP_REDIS_HEARTBEAT_MS', () => {
  it('default to a second per note and the backend heartbeat', () => {
    const config = loadGatewayConfig({}, []);
    expect(config.notesExportStepMs).toBe(1_000);
    expect(config.redisHeartbeatMs).toBeUndefined();
  });

  it('take milliseconds (0 for an export without waits)', () => {
    const config = loadGatewayConfig({ NOTES_EXPORT_STEP_MS: '0', MCP_REDIS_HEARTBEAT_MS: '250' }, []);
    expect(config.notesExportStepMs).toBe(0);
    expect(config.redisHeartbeatMs).toBe(250);
  });

  it.each([
    ['NOTES_EXPORT_STEP_MS', '-1'],
    ['NOTES_EXPORT_STEP_MS', 'soon'],
    ['MCP_REDIS_HEARTBEAT_MS', '0'],
  ])('refuses %s=%p with a message naming it', (name, value) => {
    expect(() => loadGatewayConfig({ [name]: value }, [])).toThrow(new RegExp(name));
  });
});

describe('MCP_SKILLS_WATCH', () => {
  it('watches the skills folder by default; 0 reads it once', () => {
    expect(loadGatewayConfig({}, []).skillsWatch).toBe(true);
    expect(loadGatewayConfig({ MCP_SKILLS_WATCH: '1' }, []).skillsWatch).toBe(true);
    expect(loadGatewayConfig({ MCP_SKILLS_WATCH: '0' }, []).skillsWatch).toBe(false);
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => loadGatewayConfig({ MCP_SKILLS_WATCH: 'yes' }, [])).toThrow(/MCP_SKILLS_WATCH is 'yes'/);
  });
});

describe('MCP_PROMETHEUS and MCP_PROMETHEUS_PORT', () => {
  it('are off by default', () => {
    expect(loadGatewayConfig({}, []).prometheus).toBeUndefined();
    expect(loadGatewayConfig({ MCP_PROMETHEUS: '0' }, []).prometheus).toBeUndefined();
  });

  it('MCP_PROMETHEUS=1 serves /metrics on the gateway listener', () => {
    expect(loadGatewayConfig({ MCP_PROMETHEUS: '1' }, []).prometheus).toEqual({});
    expect(loadGatewayConfig({ MCP_PROMETHEUS: 'true' }, []).prometheus).toEqual({});
  });

  it('MCP_PROMETHEUS_PORT serves it on a port of its own (0: any free one), and turns it on by itself', () => {
    expect(loadGatewayConfig({ MCP_PROMETHEUS_PORT: '9464' }, []).prometheus).toEqual({ port: 9464 });
    expect(loadGatewayConfig({ MCP_PROMETHEUS: '1', MCP_PROMETHEUS_PORT: '0' }, []).prometheus).toEqual({ port: 0 });
  });

  it.each([
    [{ MCP_PROMETHEUS: 'yes' }, /MCP_PROMETHEUS is 'yes'/],
    [{ MCP_PROMETHEUS_PORT: 'http' }, /MCP_PROMETHEUS_PORT is 'http'/],
    [{ MCP_PROMETHEUS_PORT: '70000' }, /MCP_PROMETHEUS_PORT is '70000'/],
    [{ MCP_PROMETHEUS: '0', MCP_PROMETHEUS_PORT: '9464' }, /unset one of them/],
    [{ MCP_PROMETHEUS_PORT: '5000' }, /the gateway's own port/],
  ])('refuses %p with a message naming the variable', (env, message) => {
    expect(() => loadGatewayConfig(env, [])).toThrow(message);
  });

  it('are refused in --stdio mode, which has no HTTP listener', () => {
    expect(() => loadGatewayConfig({ MCP_PROMETHEUS: '1' }, ['node', 'main', '--stdio'])).toThrow(/--stdio/);
  });
});

describe('MCP_PROMETHEUS_TOKEN (the scrape credential)', () => {
  const ISSUER = { MCP_AUTH_ISSUER: 'https://auth.example.com' };
  const TOKEN = 'a-scrape-secret-of-32-characters';

  it('is required beside authorization: /metrics is not left open when /mcp needs a token', () => {
    expect(() => loadGatewayConfig({ ...ISSUER, MCP_PROMETHEUS: '1' }, [])).toThrow(/MCP_PROMETHEUS_TOKEN/);
    expect(() => loadGatewayConfig({ ...ISSUER, MCP_PROMETHEUS_PORT: '9464' }, [])).toThrow(/MCP_PROMETHEUS_TOKEN/);
    expect(loadGatewayConfig({ ...ISSUER, MCP_PROMETHEUS: '1', MCP_PROMETHEUS_TOKEN: TOKEN }, []).prometheus).toEqual({
      token: TOKEN,
    });
  });

  it('may be set without authorization, and is then required all the same', () => {
    expect(loadGatewayConfig({ MCP_PROMETHEUS_PORT: '9464', MCP_PROMETHEUS_TOKEN: TOKEN }, []).prometheus).toEqual({
      port: 9464,
      token: TOKEN,
    });
  });

  it.each([
    [{ MCP_PROMETHEUS: '1', MCP_PROMETHEUS_TOKEN: 'short' }, /shorter than 16 bytes/],
    [{ MCP_PROMETHEUS_TOKEN: TOKEN }, /Prometheus is off/],
  ])('refuses %p with a message naming the variable', (env, message) => {
    expect(() => loadGatewayConfig(env, [])).toThrow(message);
  });
});

describe('MCP_OTEL_CLIENT_TRACE_CONTEXT and MCP_OTEL_SESSION_IDS', () => {
  it("leave the library's defaults when unset", () => {
    expect(loadGatewayConfig({}, []).telemetry).toEqual({ clientTraceContext: undefined, sessionIds: undefined });
  });

  it('pass a chosen value to the telemetry options', () => {
    expect(
      loadGatewayConfig({ MCP_OTEL_CLIENT_TRACE_CONTEXT: 'link', MCP_OTEL_SESSION_IDS: 'none' }, []).telemetry,
    ).toEqual({ clientTraceContext: 'link', sessionIds: 'none' });
  });

  it.each([
    ['MCP_OTEL_CLIENT_TRACE_CONTEXT', 'follow'],
    ['MCP_OTEL_SESSION_IDS', 'hash'],
  ])('refuses %s=%p with a message naming it', (name, value) => {
    expect(() => loadGatewayConfig({ [name]: value }, [])).toThrow(new RegExp(`${name} is '${value}'`));
  });
});

describe('MCP_HTTP_PLATFORM', () => {
  it('is express when unset, fastify when chosen', () => {
    expect(loadGatewayConfig({}, []).httpPlatform).toBe('express');
    expect(loadGatewayConfig({ MCP_HTTP_PLATFORM: 'fastify' }, []).httpPlatform).toBe('fastify');
  });

  it('refuses another platform, naming the variable and the choices', () => {
    expect(() => loadGatewayConfig({ MCP_HTTP_PLATFORM: 'koa' }, [])).toThrow(
      "MCP_HTTP_PLATFORM is 'koa': use 'express', 'fastify'",
    );
  });
});

describe('REDIS_CLUSTER_NODES', () => {
  it('takes comma-separated host:port seeds; REDIS_URL beside it gives every node its credentials and TLS', () => {
    const config = loadGatewayConfig(
      { REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b:7001', REDIS_URL: 'rediss://app:s%40cret@ignored:6379' },
      [],
    );
    expect(config.redisClusterNodes).toEqual(['10.0.0.1:7000', 'redis-b:7001']);
    expect(redisTargetOf(config)).toEqual({
      clusterNodes: ['10.0.0.1:7000', 'redis-b:7001'],
      nodeOptions: { username: 'app', password: 's@cret', tls: {} },
    });
    expect(redisTargetOf(loadGatewayConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }, []))).toEqual({
      url: 'redis://127.0.0.1:6379',
    });
    expect(redisTargetOf(loadGatewayConfig({}, []))).toBeUndefined();
  });

  it.each(['10.0.0.1', '10.0.0.1:0', '10.0.0.1:70000', 'a:1,,b:2', 'redis://a:1'])('refuses %s', (nodes) => {
    expect(() => loadGatewayConfig({ REDIS_CLUSTER_NODES: nodes }, [])).toThrow(/REDIS_CLUSTER_NODES/);
  });
});
