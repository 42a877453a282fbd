// What the rest of the server knows about the signed-in caller.
import type { FastifyRequest, FastifyReply } from 'fastify';
import type { AppError } from '../http/errors.ts';
import type { InstanceRow, PrefetchedPage } from '../db/instances-repo.ts';

export interface SessionUser {
  userId: string;
  userName: string;
  realName: string;
  deptId: string | null;
  isAdmin: boolean;
  languageId: string | null;
  sessionId: string;
  sessionKind: 'cookie' | 'token';
  /** The password was reset: until it is changed the session may only change it, sign out and read the current user. */
  mustChangePassword?: boolean;
  /** Whether the user has ever marked an item (User.hasMarks): listings look for the caller's marks only then. */
  hasMarks: boolean;
}

export interface AuthService {
  /** Resolves the caller from the session cookie or token header; throws AppError UNAUTHENTICATED etc. */
  authenticate(req: FastifyRequest, reply: FastifyReply): Promise<SessionUser>;
  /** The caller when signed in, without failing (public calls that behave better with a session). */
  peek(req: FastifyRequest): Promise<SessionUser | null>;
}

declare module 'fastify' {
  interface FastifyRequest {
    user: SessionUser | null;
    operationId: string | null;
    traceId: string;
    /** Instances of a batch call the access gate refused, each with its error (x-hcs-access each: true). */
    accessRefused: Map<string, AppError> | null;
    /** The rows (with their ancestors) the access gate read for this request, by id: handlers may reuse them. */
    gateRows: Map<string, InstanceRow> | null;
    /** A listing's page the gate read with the folder's chain (getChainsWithPage), for the listing to use. */
    listingPage: PrefetchedPage | null;
  }
}
