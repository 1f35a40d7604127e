/**
 * "Pair app" (managementportal.md §5): pick an app's OAuth client (those with
 * `dynamic_registration`), optionally a persistent token, and "Generate QR code": the pairing
 * service's meta-token URL as a QR code drawn on the server (error correction M, 320 px with its
 * quiet zone), with the token's name and expiry as text. Generating again deletes the token shown
 * before, as the reference's dialog does. "Print" prints the code and its text only.
 *
 * The code is answered to the POST itself (no 303): its URL is a credential, it must not land in
 * a URL, a history entry or a cache.
 *
 * The page shows the base URL the app will receive and warns when it, or the token URL's base,
 * is a loopback address (a phone cannot reach it). A subject that is not activated (inactive or
 * discontinued) cannot be paired: the page says why instead of offering the form.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../../platform/errors.js';
import type { OAuthClientService } from '../../api/oauth-clients/service.js';
import type { ProjectService } from '../../api/projects/service.js';
import type { SubjectService } from '../../api/subjects/service.js';
import type { PairingCaller, PairingService } from '../../pairing/service.js';
import { TOKEN_NAME } from '../../pairing/schemas.js';
import { actorOf, authorizeScope, principal } from '../../security/authorization.js';
import { context, render } from '../context.js';
import { PROJECT_NAME, projectFirst, projectHeader, subjectPath } from './project.js';
import { notActiveReason, subjectOfProject } from './subjects.js';

export interface PairingPageServices {
  projects: ProjectService;
  subjects: SubjectService;
  oauthClients: OAuthClientService;
  pairing: PairingService;
}

/** Pixels of the QR image, quiet zone included (≥ 256 so a phone reads it from a screen or paper). */
const QR_WIDTH = 320;
/** Modules of quiet zone around the code (the standard's minimum). */
const QR_MARGIN = 4;

const Params = Type.Object({ name: Type.String(PROJECT_NAME), login: Type.String({ minLength: 1, maxLength: 255 }) });
const PairForm = Type.Object({
  _csrf: Type.String(),
  clientId: Type.String({ minLength: 1, maxLength: 255 }),
  persistent: Type.Optional(Type.String({ maxLength: 10 })),
  /** The token shown before on this page: deleted when a new one is drawn. */
  previous: Type.Optional(Type.String({ maxLength: 64 })),
});

/** Whether a URL's host is a loopback address (localhost, 127.0.0.0/8, ::1). */
export function isLoopback(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '[::1]';
}

/**
 * The QR code of `text` as a PNG data URL. `qrcode` (with its PNG encoder, ~20 files) is loaded on
 * the first pairing page, not at start-up (issue 30 item 5).
 */
export async function qrCodeDataUrl(text: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toDataURL(text, { errorCorrectionLevel: 'M', width: QR_WIDTH, margin: QR_MARGIN, type: 'image/png' });
}

const callerOf = (request: FastifyRequest): PairingCaller => {
  const auth = principal(request);
  return { userName: auth.userName, address: request.ip, check: actorOf(request).check };
};

export const pairingPageRoutes: FastifyPluginAsyncTypebox<PairingPageServices> = async (app, { projects, subjects, oauthClients, pairing }) => {
  /** The app clients (`dynamic_registration` true); OAUTHCLIENTS.READ as the API's list. */
  async function appClients(request: FastifyRequest): Promise<string[]> {
    authorizeScope(request, 'OAUTHCLIENTS.READ');
    return (await oauthClients.list())
      .filter((client) => String(client.additionalInformation['dynamic_registration']).toLowerCase() === 'true')
      .map((client) => client.clientId)
      .sort((a, b) => a.localeCompare(b));
  }

  const { baseUrl, tokenUrlBase } = pairing.addresses;
  const loopbackSettings = [
    ['MANAGEMENTPORTAL_COMMON_BASE_URL', baseUrl], ['MANAGEMENTPORTAL_COMMON_MANAGEMENT_PORTAL_BASE_URL', tokenUrlBase],
  ].filter(([, url]) => isLoopback(url!));

  async function pairPage(request: FastifyRequest, name: string, login: string) {
    const [project, subject, clients] = await projectFirst([
      projectHeader(request, projects, name, 'subjects'), subjectOfProject(request, subjects, name, login), appClients(request),
    ]);
    const { t, base } = context(request);
    return {
      title: t('pair.title', { login }), project, login, clients, action: `${subjectPath(base, name, login)}/pair`,
      notActive: notActiveReason(request, subject), baseUrl,
      warnings: loopbackSettings.map(([setting, url]) => t('pair.loopback', { setting: setting!, url: url! })),
    };
  }

  app.get('/projects/:name/subjects/:login/pair', { schema: { hide: true, params: Params } }, async (request, reply) => {
    const data = await pairPage(request, request.params.name, request.params.login);
    return render(request, reply, 'projects/pair', { ...data, clientId: data.clients[0] ?? '', persistent: false });
  });

  app.post('/projects/:name/subjects/:login/pair', { schema: { hide: true, params: Params, body: PairForm } }, async (request, reply) => {
    const { t } = context(request);
    const { name, login } = request.params;
    const data = await pairPage(request, name, login);
    const { clientId, previous } = request.body;
    const persistent = request.body.persistent !== undefined;
    const form = { ...data, clientId, persistent };
    if (data.notActive) return render(request, reply, 'projects/pair', form, 409);
    if (!data.clients.includes(clientId)) {
      return render(request, reply, 'projects/pair', { ...form, error: t('error.400') }, 400);
    }
    if (previous && TOKEN_NAME.test(previous)) {
      try {
        await pairing.remove(callerOf(request), previous);
      } catch (error) {
        // Read (and purged) or deleted already: nothing left to delete.
        if (!(error instanceof DomainError && error.status === 404)) throw error;
      }
    }
    const token = await pairing.pair(callerOf(request), { login, clientId, persistent: String(persistent) });
    return render(request, reply, 'projects/pair', {
      ...form,
      token: { name: token.tokenName, url: token.tokenUrl, expires: token.timesOutAt, qr: await qrCodeDataUrl(token.tokenUrl) },
    });
  });
};
