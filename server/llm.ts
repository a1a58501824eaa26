// The assistant's language model: any OpenAI-compatible chat-completions endpoint
// (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL), over fetch, with tools (function calling). Every
// failure (not configured, timeout, network, non-2xx, unreadable body) is an LlmError whose
// message is safe to log; callers turn it into a failed reply, never a 500.
import type { Config } from './config.js';

export type LlmMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: LlmToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface LlmToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A tool offered to the model: a name, what it does, and JSON Schema parameters. */
export interface LlmTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface LlmReply {
  content: string | null;
  toolCalls: LlmToolCall[];
  usage: { prompt_tokens: number; completion_tokens: number };
}

export class LlmError extends Error {
  override name = 'LlmError';
}

export interface LlmSettings {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  /** Time allowed for one completion. */
  timeoutMs: number;
}

/** Time allowed for the health check (spec: 5 seconds). */
export const HEALTH_TIMEOUT_MS = 5_000;

/** The configured provider, or undefined when no language model is configured. */
export function llmSettings(config: Config): LlmSettings | undefined {
  return config.llmBaseUrl ? { baseUrl: config.llmBaseUrl, apiKey: config.llmApiKey, model: config.llmModel, timeoutMs: config.llmTimeoutSeconds * 1000 } : undefined;
}

function headers(settings: LlmSettings): Record<string, string> {
  return { 'content-type': 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) };
}

async function fetchWithTimeout(url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new LlmError(`The language model did not answer within ${Math.round(timeoutMs / 1000)} s.`);
    throw new LlmError(`The language model could not be reached: ${(error as Error).message}`);
  }
}

/** One chat completion, offering `tools` (none: a plain answer). */
export async function chatCompletion(
  settings: LlmSettings,
  messages: LlmMessage[],
  tools: LlmTool[] = [],
): Promise<LlmReply> {
  const body = {
    model: settings.model,
    messages,
    temperature: 0,
    ...(tools.length > 0 ? { tools: tools.map((tool) => ({ type: 'function', function: tool })), tool_choice: 'auto' } : {}),
  };
  const response = await fetchWithTimeout(
    `${settings.baseUrl}/chat/completions`,
    { method: 'POST', headers: headers(settings), body: JSON.stringify(body) },
    settings.timeoutMs,
  );
  if (!response.ok) {
    const detail = (await response.text().catch(() => '')).slice(0, 200);
    throw new LlmError(`The language model answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`);
  }
  let parsed: any;
  try {
    parsed = await response.json();
  } catch {
    throw new LlmError('The language model answered with a body that is not JSON.');
  }
  const message = parsed?.choices?.[0]?.message;
  if (!message || typeof message !== 'object') throw new LlmError('The language model answered without a message.');
  const toolCalls: LlmToolCall[] = Array.isArray(message.tool_calls)
    ? message.tool_calls
        .filter((call: any) => typeof call?.function?.name === 'string')
        .map((call: any, index: number) => ({
          id: String(call.id ?? `call_${index}`),
          type: 'function' as const,
          function: { name: call.function.name, arguments: typeof call.function.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function.arguments ?? {}) },
        }))
    : [];
  const count = (value: unknown) => (Number.isInteger(value) && (value as number) >= 0 ? (value as number) : 0);
  return {
    content: typeof message.content === 'string' ? message.content : null,
    toolCalls,
    usage: { prompt_tokens: count(parsed.usage?.prompt_tokens), completion_tokens: count(parsed.usage?.completion_tokens) },
  };
}

/** Whether the provider answers its model list (GET {base}/models) with a 2xx in time. */
export async function llmReachable(settings: LlmSettings, timeoutMs = HEALTH_TIMEOUT_MS): Promise<boolean> {
  try {
    const response = await fetchWithTimeout(`${settings.baseUrl}/models`, { headers: headers(settings) }, timeoutMs);
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
