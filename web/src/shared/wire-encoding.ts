// The spec's transport encoding (section 5): Base64 with "/" -> "_x", "+" -> "_j", "=" -> "_d", used for instance
// names and for encrypted passwords so they survive query strings and the company's gateways unchanged.

export function toWireBase64(base64: string): string {
  return base64.replace(/\//g, '_x').replace(/\+/g, '_j').replace(/=/g, '_d');
}

export function fromWireBase64(wire: string): string {
  return wire.replace(/_x/g, '/').replace(/_j/g, '+').replace(/_d/g, '=');
}

function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** A UTF-8 string (e.g. an instance name) in wire form. */
export function encodeWireText(text: string): string {
  return toWireBase64(bytesToBase64(new TextEncoder().encode(text)));
}

export function decodeWireText(wire: string): string {
  const bin = atob(fromWireBase64(wire));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

function pemToDer(pem: string): Uint8Array<ArrayBuffer> {
  const body = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
  const bin = atob(body);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/**
 * Encrypts a password with the server's RSA public key (SPKI PEM from getPlatformInfo) using RSA-OAEP SHA-256, in
 * wire form. The plaintext never leaves the browser.
 */
export async function encryptPassword(password: string, publicKeyPem: string): Promise<string> {
  const key = await crypto.subtle.importKey('spki', pemToDer(publicKeyPem), { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
  const cipher = await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, new TextEncoder().encode(password));
  return toWireBase64(bytesToBase64(new Uint8Array(cipher)));
}
