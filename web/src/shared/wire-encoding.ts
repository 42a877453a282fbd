// The spec's transport encoding (section 5) as the web app uses it: the implementations live in the shared
// typed client (@hcs/openapi/client), so the browser, the CLI and the server tests encode the same way.
import { decodeName, encodeName, encryptPassword as encrypt, fromWireBase64, toWireBase64 } from '@hcs/openapi/client';

export { fromWireBase64, toWireBase64 };

/** A UTF-8 string (e.g. an instance name) in wire form. */
export const encodeWireText = encodeName;
export const decodeWireText = decodeName;

/** RSA-OAEP SHA-256 under the server's public key (getPlatformInfo), in wire form; the plaintext never leaves the page. */
export function encryptPassword(password: string, publicKeyPem: string): Promise<string> {
  return encrypt(publicKeyPem, password);
}
