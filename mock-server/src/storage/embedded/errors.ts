// S3 error codes with the HTTP status S3 itself answers them with. Clients (the AWS SDK, the
// browser transfer engine) branch on the code, so both must match real S3.
const STATUS: Record<string, number> = {
  AccessDenied: 403,
  AccessForbidden: 403,
  AuthorizationHeaderMalformed: 400,
  AuthorizationQueryParametersError: 400,
  BadDigest: 400,
  BadRequest: 400,
  BucketAlreadyOwnedByYou: 409,
  BucketNotEmpty: 409,
  EntityTooLarge: 400,
  EntityTooSmall: 400,
  IncompleteBody: 400,
  InternalError: 500,
  InvalidAccessKeyId: 403,
  InvalidArgument: 400,
  InvalidBucketName: 400,
  InvalidDigest: 400,
  InvalidPart: 400,
  InvalidPartOrder: 400,
  InvalidRange: 416,
  InvalidRequest: 400,
  InvalidURI: 400,
  KeyTooLongError: 400,
  MalformedXML: 400,
  MetadataTooLarge: 400,
  MethodNotAllowed: 405,
  MissingContentLength: 411,
  NoSuchBucket: 404,
  NoSuchKey: 404,
  NoSuchUpload: 404,
  NotImplemented: 501,
  NotModified: 304,
  PreconditionFailed: 412,
  RequestTimeTooSkewed: 403,
  SignatureDoesNotMatch: 403,
  XAmzContentSHA256Mismatch: 400,
};

const DEFAULT_MESSAGE: Record<string, string> = {
  AccessDenied: 'Access Denied',
  BucketAlreadyOwnedByYou: 'Your previous request to create the named bucket succeeded and you already own it.',
  BucketNotEmpty: 'The bucket you tried to delete is not empty',
  EntityTooLarge: 'Your proposed upload exceeds the maximum allowed size',
  EntityTooSmall: 'Your proposed upload is smaller than the minimum allowed object size.',
  IncompleteBody: 'You did not provide the number of bytes specified by the Content-Length HTTP header',
  InternalError: 'We encountered an internal error. Please try again.',
  InvalidBucketName: 'The specified bucket is not valid.',
  InvalidPart: 'One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part\'s entity tag.',
  InvalidPartOrder: 'The list of parts was not in ascending order. The parts list must be specified in order by part number.',
  InvalidRange: 'The requested range is not satisfiable',
  KeyTooLongError: 'Your key is too long',
  MalformedXML: 'The XML you provided was not well-formed or did not validate against our published schema',
  MethodNotAllowed: 'The specified method is not allowed against this resource.',
  MissingContentLength: 'You must provide the Content-Length HTTP header.',
  NoSuchBucket: 'The specified bucket does not exist',
  NoSuchKey: 'The specified key does not exist.',
  NoSuchUpload: 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
  NotImplemented: 'A header or query you provided implies functionality that is not implemented.',
  PreconditionFailed: 'At least one of the pre-conditions you specified did not hold',
  XAmzContentSHA256Mismatch: "The provided 'x-amz-content-sha256' header does not match what was computed.",
};

export class S3Error extends Error {
  readonly code: string;
  readonly status: number;
  /** Extra elements of the error body, e.g. ProposedSize or ActualObjectSize. */
  readonly detail: Record<string, string>;
  /** Extra response headers, e.g. Content-Range on InvalidRange. */
  readonly headers: Record<string, string>;

  constructor(code: string, message?: string, extra: { detail?: Record<string, string>; headers?: Record<string, string> } = {}) {
    super(message ?? DEFAULT_MESSAGE[code] ?? code);
    this.name = 'S3Error';
    this.code = code;
    this.status = STATUS[code] ?? 400;
    this.detail = extra.detail ?? {};
    this.headers = extra.headers ?? {};
  }
}

export function isS3Error(err: unknown): err is S3Error {
  return err instanceof S3Error;
}
