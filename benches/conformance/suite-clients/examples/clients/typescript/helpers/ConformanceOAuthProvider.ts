import { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  OAuthClientInformation,
  OAuthClientInformationFull,
  OAuthClientMetadata,
  OAuthTokens
} from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * SEP-837 adds `application_type` to DCR; the SDK's OAuthClientMetadataSchema
 * doesn't include it yet. The SDK spreads clientMetadata verbatim into the
 * /register POST body, so widening the type here is sufficient to get the
 * field on the wire. Drop this once the SDK schema is updated.
 */
type ConformanceClientMetadata = OAuthClientMetadata & {
  application_type?: 'native' | 'web';
};

export class ConformanceOAuthProvider implements OAuthClientProvider {
  private _clientInformation?: OAuthClientInformationFull;
  private _tokens?: OAuthTokens;
  private _codeVerifier?: string;
  private _authCode?: string;
  private _authCodePromise?: Promise<string>;
  /** Issuer the current credentials were obtained from (SEP-2352 keying). */
  private _boundIssuer?: string;

  constructor(
    private readonly _redirectUrl: string | URL,
    private readonly _clientMetadata: ConformanceClientMetadata,
    private readonly _clientMetadataUrl?: string | URL
  ) {}

  get redirectUrl(): string | URL {
    return this._redirectUrl;
  }

  get clientMetadata(): ConformanceClientMetadata {
    return this._clientMetadata;
  }

  get clientMetadataUrl(): string | undefined {
    return this._clientMetadataUrl?.toString();
  }

  clientInformation(): OAuthClientInformation | undefined {
    return this._clientInformation;
  }

  saveClientInformation(clientInformation: OAuthClientInformationFull): void {
    this._clientInformation = clientInformation;
  }

  tokens(): OAuthTokens | undefined {
    return this._tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this._tokens = tokens;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    try {
      const response = await fetch(authorizationUrl.toString(), {
        redirect: 'manual' // Don't follow redirects automatically
      });

      // Get the Location header which contains the redirect with auth code
      const location = response.headers.get('location');
      if (location) {
        const redirectUrl = new URL(location);
        const code = redirectUrl.searchParams.get('code');
        if (code) {
          this._authCode = code;
          return;
        } else {
          throw new Error('No auth code in redirect URL');
        }
      } else {
        throw new Error(
          `No redirect location received, from '${authorizationUrl.toString()}'`
        );
      }
    } catch (error) {
      console.error('Failed to fetch authorization URL:', error);
      throw error;
    }
  }

  async getAuthCode(): Promise<string> {
    if (this._authCode) {
      return this._authCode;
    }
    throw new Error('No authorization code');
  }

  saveCodeVerifier(codeVerifier: string): void {
    this._codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this._codeVerifier) {
      throw new Error('No code verifier saved');
    }
    return this._codeVerifier;
  }

  /** SDK calls this on auth errors; also used by bindIssuer below. */
  invalidateCredentials(scope: 'all' | 'tokens'): void {
    this._tokens = undefined;
    this._authCode = undefined;
    if (scope === 'all') {
      this._clientInformation = undefined;
      this._codeVerifier = undefined;
    }
  }

  /**
   * SEP-2352: associate stored credentials with the AS issuer that issued them.
   * If the issuer changes (PRM migrated to a new authorization server), clear
   * everything so the SDK re-registers instead of reusing stale credentials.
   * Returns true when a change was detected and credentials were cleared.
   */
  bindIssuer(issuer: string): boolean {
    if (this._boundIssuer !== undefined && this._boundIssuer !== issuer) {
      this.invalidateCredentials('all');
      this._boundIssuer = issuer;
      return true;
    }
    this._boundIssuer = issuer;
    return false;
  }
}
