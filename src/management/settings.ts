/**
 * The management domain's settings: the one module of the domain that reads `Config`
 * (ARCHITECTURE.md rule 10). `buildApp` maps the configuration once with `managementSettings`;
 * the domain's plugin hands each service the part it takes, so no service sees `Config` and a
 * test can build any of them from plain values.
 */
import type { CalendarPeriod, Config } from '../config.js';
import type { MailSettings } from './mail/templates.js';
import type { PairingSettings } from './pairing/service.js';

export interface KeyStoreSettings {
  /** `MANAGEMENTPORTAL_OAUTH_KEY_STORE` (the reference's mount point is tried when the default is absent). */
  file: string;
  password: string;
  signingAlias: string;
  checkingAliases: readonly string[];
}

export interface ManagementSettings {
  profile: 'dev' | 'prod';
  keyStore: KeyStoreSettings;
  oauth: {
    /** `iss` of the tokens. */
    issuer: string;
    /** Unset: the dev file in dev, the reference's mount point (when present) in prod. */
    clientsFile: string | undefined;
    refreshReuseGraceSeconds: number;
    /** `MANAGEMENTPORTAL_OAUTH_LEGACY_REFRESH_UNTIL` (epoch ms): reference-issued refresh tokens after it are refused. */
    legacyRefreshUntil: number | undefined;
    /** Failed client or user authentications per (name, client IP) in a minute before 429. */
    failedAttemptsPerMinute: number;
    /** Failed authentications per client IP in a minute, over all names, before 429. */
    failedAttemptsPerAddressPerMinute: number;
    /** Public clients must send a PKCE `code_challenge`. */
    requirePkce: boolean;
    /** The token lifetimes of the built-in frontend client (`ManagementPortalapp`). */
    frontendClient: { accessTokenValiditySeconds: number; refreshTokenValiditySeconds: number };
  };
  /** `MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD`: the built-in admin's password. */
  adminPassword: string | undefined;
  /** `MANAGEMENTPORTAL_SESSION_SECRET`; unset: one kept in the database. */
  sessionSecret: string | undefined;
  /** What `/api/sitesettings` reports: `MANAGEMENTPORTAL_SITE_SETTINGS_HIDDEN_SUBJECT_FIELDS`. */
  hiddenSubjectFields: readonly string[];
  /** `MANAGEMENTPORTAL_COMMON_ACTIVATION_KEY_TIMEOUT_IN_SECONDS`: how long a reset key works. */
  activationKeyTimeoutSeconds: number;
  mail: MailSettings;
  pairing: PairingSettings;
  /** `MANAGEMENTPORTAL_META_TOKEN_READS_PER_MINUTE` per client IP. */
  metaTokenReadsPerMinute: number;
  /** The catalogue server to import source types from at start; undefined: no import. */
  catalogueServerUrl: string | undefined;
  /** `MANAGEMENTPORTAL_AUDIT_RETENTION`: audit events older than this go; undefined keeps them forever. */
  auditRetention: CalendarPeriod | undefined;
  ui: {
    /** `MANAGEMENTPORTAL_UI_SESSION_TIMEOUT`: idle timeout of every signed-in session (admin and OAuth pages). */
    sessionTimeoutSeconds: number;
    /** `MANAGEMENTPORTAL_UI_SESSION_MAX_AGE`: how long a signed-in session lasts after sign-in, however busy. */
    sessionMaxAgeSeconds: number;
    /** `MANAGEMENTPORTAL_UI_LOGO_DIR`: replacement logos, read at every request. */
    logoDir: string | undefined;
    /** `MANAGEMENTPORTAL_COMMON_MANAGEMENT_PORTAL_BASE_URL`, for links shown on the pages. */
    managementPortalBaseUrl: string;
  };
}

export function managementSettings(config: Config): ManagementSettings {
  return {
    profile: config.profile,
    keyStore: {
      file: config.managementportalOauthKeyStore,
      password: config.managementportalOauthKeyStorePassword,
      signingAlias: config.managementportalOauthSigningKeyAlias,
      checkingAliases: config.managementportalOauthCheckingKeyAliases,
    },
    oauth: {
      issuer: config.managementportalOauthIssuer,
      clientsFile: config.managementportalOauthClientsFile,
      refreshReuseGraceSeconds: config.managementportalOauthRefreshReuseGraceSeconds,
      legacyRefreshUntil: config.managementportalOauthLegacyRefreshUntil,
      failedAttemptsPerMinute: config.managementportalOauthFailedAttemptsPerMinute,
      failedAttemptsPerAddressPerMinute: config.managementportalOauthFailedAttemptsPerAddressPerMinute,
      requirePkce: config.managementportalOauthRequirePkce,
      frontendClient: {
        accessTokenValiditySeconds: config.managementportalFrontendAccessTokenValiditySeconds,
        refreshTokenValiditySeconds: config.managementportalFrontendRefreshTokenValiditySeconds,
      },
    },
    adminPassword: config.managementportalCommonAdminPassword,
    sessionSecret: config.managementportalSessionSecret,
    hiddenSubjectFields: config.managementportalSiteSettingsHiddenSubjectFields,
    activationKeyTimeoutSeconds: config.managementportalCommonActivationKeyTimeoutInSeconds,
    mail: {
      from: config.managementportalMailFrom,
      managementPortalBaseUrl: config.managementportalCommonManagementPortalBaseUrl,
      keyTimeoutSeconds: config.managementportalCommonActivationKeyTimeoutInSeconds,
    },
    pairing: {
      managementPortalBaseUrl: config.managementportalCommonManagementPortalBaseUrl,
      baseUrl: config.managementportalCommonBaseUrl,
      privacyPolicyUrl: config.managementportalCommonPrivacyPolicyUrl,
      metaTokenTimeoutSeconds: config.managementportalOauthMetaTokenTimeout,
      persistentMetaTokenTimeoutSeconds: config.managementportalOauthPersistentMetaTokenTimeout,
    },
    metaTokenReadsPerMinute: config.managementportalMetaTokenReadsPerMinute,
    // config.ts refuses auto-import without a URL.
    auditRetention: config.managementportalAuditRetention,
    catalogueServerUrl: config.managementportalCatalogueServerEnableAutoImport ? config.managementportalCatalogueServerServerUrl : undefined,
    ui: {
      sessionTimeoutSeconds: config.managementportalUiSessionTimeout,
      sessionMaxAgeSeconds: config.managementportalUiSessionMaxAge,
      logoDir: config.managementportalUiLogoDir,
      managementPortalBaseUrl: config.managementportalCommonManagementPortalBaseUrl,
    },
  };
}
