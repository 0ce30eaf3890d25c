import { ConfigError } from '../../engine/read-face.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** Where the OTLP traces go, from the standard OpenTelemetry variables. */
export interface TraceExportConfig {
  readonly url: string;
  readonly protocol: OtlpProtocol;
}

const DEFAULT_PROTOCOL: OtlpProtocol = 'http/protobuf';

/**
 * The OTLP trace export the environment configures, or null when it configures none (tracing is
 * off unless an endpoint is set): `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, else
 * `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`; `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`
 * `http/protobuf` (the default) or `http/json`. `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` turn it off. gRPC is refused with a ConfigError naming the fix.
 */
export function traceExportConfig(env: NodeJS.ProcessEnv): TraceExportConfig | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  if ((env.OTEL_TRACES_EXPORTER ?? '').split(',').some((name) => name.trim() === 'none')) return null;
  const url = tracesUrl(env);
  if (url === null) return null;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? DEFAULT_PROTOCOL).trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: dagent exports traces over OTLP/HTTP; set it to http/protobuf or http/json`);
  }
  try {
    new URL(url);
  } catch {
    throw new ConfigError(`the OTLP endpoint ${JSON.stringify(url)} is not a URL (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)`);
  }
  return { url, protocol };
}

function tracesUrl(env: NodeJS.ProcessEnv): string | null {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces !== undefined && traces !== '') return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (base === undefined || base === '') return null;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}
