// A URL a user gives for the service to POST to (a webhook endpoint, a push endpoint, an ntfy
// topic): http or https, no credentials, and not into the service's own network unless the
// operator allows it (server/webhook-targets.ts; checked again at every delivery).
import { invalidField } from '../../server/errors.js';
import type { AppServices } from '../../server/services.js';
import { targetPolicyFor } from '../../server/webhook-targets.js';

/** The URL as stored; 422 on `field` for one the service must not send to. */
export function checkedTargetUrl(text: string, field: string, services: AppServices, credentialsHint: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw invalidField(field, `The ${field} must be a valid http or https URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidField(field, `The ${field} must be a valid http or https URL.`);
  if (url.username || url.password) throw invalidField(field, `The ${field} must not contain credentials; ${credentialsHint}.`);
  const refusal = targetPolicyFor(services.config.webhooks).refusalOfUrl(url);
  if (refusal) throw invalidField(field, `The ${field} must not point into a private network (${refusal}).`);
  return url.href;
}
