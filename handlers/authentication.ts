// Authentication: register, login, logout and the current user. The same handlers answer the
// public `/api/...` routes and their `/api/v1/...` aliases.
import type { Kysely } from 'kysely';
import { seedNewAccount } from '../db/account-defaults.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Database } from '../db/schema.js';
import { revokeToken } from '../db/tokens.js';
import { consumeRegistrationProof, markEmailVerified } from '../db/verification-codes.js';
import { avatarOf, findUserForLogin, takenIdentityFields, type UserIdentifier } from '../db/users.js';
import { hashPassword, verifyPassword } from '../domain/passwords.js';
import { created, done, ok, successBody } from '../server/envelope.js';
import { HttpError, validationFailed } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import type { AppServices } from '../server/services.js';
import { toUser, type UserView } from './views/user.js';

const TAKEN = 'has already been taken.';

async function registerUser({ body, db, services }: HandlerContext<'registerUser' | 'registerUserV1'>) {
  const identity = { email: body.email.trim(), username: body.username?.trim(), phone: body.phone?.trim() };
  const taken = await takenIdentityFields(db, identity);
  if (taken.length > 0) throw validationFailed(Object.fromEntries(taken.map((field) => [field, [`The ${field} ${TAKEN}`]])));

  const passwordHash = await hashPassword(body.password, services.config.passwordHashing);
  try {
    const payload = await db.transaction().execute(async (trx) => {
      const user = await trx
        .insertInto('users')
        .values({
          email: identity.email,
          first_name: body.first_name,
          last_name: body.last_name ?? null,
          username: identity.username ?? null,
          phone: identity.phone ?? null,
          password_hash: passwordHash,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await seedNewAccount(trx, user.id);
      // A code verified for this address before sign-up proved it: the account starts verified
      // (otherwise a later social login with the address would take the account over).
      if (await consumeRegistrationProof(trx, user.email, services.now())) await markEmailVerified(trx, user.email, services.now());
      return signIn(trx, services, toUser(user, null));
    });
    return created(payload, 'User registered successfully');
  } catch (error) {
    // Two registrations racing for one address: the unique index decides, the loser gets 422.
    if (isUniqueViolation(error, 'users_email_lower_key')) throw validationFailed({ email: [`The email ${TAKEN}`] });
    if (isUniqueViolation(error, 'users_username_lower_key')) throw validationFailed({ username: [`The username ${TAKEN}`] });
    throw error;
  }
}

async function loginUser(ctx: HandlerContext<'loginUser' | 'loginUserV1'>) {
  return ok(await passwordSignIn(ctx), LOGGED_IN);
}

const LOGGED_IN = 'User successfully logged in';

async function passwordSignIn({ body, db, services }: HandlerContext<'loginUser' | 'loginUserV1' | 'loginUserAuthAlias'>) {
  const user = await findUserForLogin(db, loginIdentifier(body));
  if (!(await verifyPassword(user?.password_hash ?? null, body.password, services.config.passwordHashing)) || !user) {
    throw new HttpError(401, 'Invalid credentials');
  }
  return signIn(db, services, toUser(user, await avatarOf(db, user.id)));
}

/** The mobile app's /auth/login: the envelope, with `token` and `user` also at the top level where that app reads them. */
async function loginUserAuthAlias(ctx: HandlerContext<'loginUserAuthAlias'>) {
  const payload = await passwordSignIn(ctx);
  return {
    status: 200,
    raw: true as const,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ ...successBody(ok(payload, LOGGED_IN)), token: payload.token, user: payload.user }),
  };
}

/** E-mail when present, else phone, else username; none of them is 422 on all three. */
function loginIdentifier(body: { email?: string; phone?: string; username?: string }): UserIdentifier {
  if (body.email !== undefined) return { email: body.email.trim() };
  if (body.phone !== undefined) return { phone: body.phone.trim() };
  if (body.username !== undefined) return { username: body.username.trim() };
  throw validationFailed({
    email: ['The email field is required when none of phone / username are present.'],
    phone: ['The phone field is required when none of email / username are present.'],
    username: ['The username field is required when none of email / phone are present.'],
  });
}

export async function signIn(db: Kysely<Database>, services: AppServices, user: UserView) {
  const issued = await services.tokens.issue(db, user.id, services.now());
  return { token: issued.token, token_type: 'Bearer' as const, expires_at: issued.expiresAt.toISOString(), user };
}

async function logoutUser({ user, db, services }: HandlerContext<'logoutUser' | 'logoutUserV1'>) {
  await revokeToken(db, user.tokenId, services.now());
  return done('User has been logged out successfully');
}

async function getCurrentUser({ user, db }: HandlerContext<'getCurrentUser'>) {
  return ok(toUser(user, await avatarOf(db, user.id)));
}

export const authenticationHandlers = {
  registerUser,
  registerUserV1: registerUser,
  loginUser,
  loginUserV1: loginUser,
  loginUserAuthAlias,
  logoutUser,
  logoutUserV1: logoutUser,
  getCurrentUser,
} satisfies Partial<Handlers>;
