/** loadConfig as a pure function: defaults, validation messages, drop-in names. No app, no database. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, envNamesOf, fastifyTrustProxy, jdbcToPostgresUrl, loadConfig, settingsTable, TOMCAT_INTERNAL_PROXIES } from '../src/config.js';

/** The ConfigError `loadConfig(env)` throws; fails the test when it does not throw one. */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

const prodBase = { PROFILE: 'prod', DATABASE_URL: 'postgres://radar:secret@db:5432/radar', RADAR_ADMIN_PASSWORD: 'admin-secret', MANAGEMENTPORTAL_MAIL_FROM: 'portal@example.org' };

describe('defaults', () => {
  it('an empty environment is the dev profile on in-memory PGlite', () => {
    const config = loadConfig({}, '1.2.3');
    expect(config).toEqual({
      profile: 'dev',
      host: '127.0.0.1',
      port: 8080,
      bootWaitSeconds: 10,
      httpBodyLimitBytes: 10 * 1024 * 1024,
      shutdownTimeoutSeconds: 10,
      logLevel: 'info',
      logsMaxFileSize: 10 * 1024 * 1024,
      logsMaxHistory: 60,
      sentryLogLevel: 'error',
      springBootAdminClientInstanceName: 'radar-appserver',
      springBootAdminClientPeriod: 10_000,
      springBootAdminClientAutoDeregistration: true,
      adminUser: 'radar',
      adminPassword: 'radar',
      smtpUrl: undefined,
      appserverContextPath: '',
      managementportalContextPath: '/managementportal',
      managementportalOauthKeyStore: 'config/keystore.p12',
      managementportalOauthKeyStorePassword: 'radarbase',
      managementportalOauthSigningKeyAlias: 'radarbase-managementportal-ec',
      managementportalOauthCheckingKeyAliases: [],
      managementportalOauthIssuer: 'ManagementPortal',
      managementportalOauthClientsFile: undefined,
      managementportalOauthRefreshReuseGraceSeconds: 0,
      managementportalOauthRequirePkce: false,
      managementportalOauthMetaTokenTimeout: 3600,
      managementportalOauthPersistentMetaTokenTimeout: 2678400,
      managementportalSiteSettingsHiddenSubjectFields: [],
      managementportalOauthFailedAttemptsPerMinute: 20,
      managementportalOauthFailedAttemptsPerAddressPerMinute: 100,
      managementportalFrontendAccessTokenValiditySeconds: 14400,
      managementportalFrontendRefreshTokenValiditySeconds: 259200,
      managementportalCommonAdminPassword: undefined,
      managementportalUiSessionTimeout: 1800,
      managementportalUiSessionMaxAge: 43200,
      managementportalUiLogoDir: undefined,
      managementportalCommonBaseUrl: 'http://localhost:8080',
      managementportalCommonManagementPortalBaseUrl: 'http://localhost:8080/managementportal',
      managementportalCommonPrivacyPolicyUrl: 'http://info.thehyve.nl/radar-cns-privacy-policy',
      managementportalCommonActivationKeyTimeoutInSeconds: 86400,
      managementportalMetaTokenReadsPerMinute: 60,
      managementportalMailFrom: 'ManagementPortal@localhost',
      managementportalCatalogueServerEnableAutoImport: false,
      managementportalCatalogueServerServerUrl: undefined,
      trustProxy: false,
      corsAllowedOrigins: [],
      schedulerEnabled: true,
      schedulerTickMs: 1000,
      schedulerBatchSize: 500,
      schedulerConcurrency: 4,
      schedulerLeaseSeconds: 60,
      schedulerMaxAttempts: 5,
      schedulerRetrySeconds: 10,
      questionnaireScheduleIntervalSeconds: 3600,
      questionnaireScheduleConcurrency: 8,
      fcmSender: 'auto',
      fcmCredentials: undefined,
      googleApplicationCredentials: undefined,
      fcmEmulatorHost: undefined,
      fcmProjectId: undefined,
      fileUploadEnabled: false,
      fileUploadMaxSize: 10 * 1024 * 1024,
      storageType: 's3',
      storageLocalPath: undefined,
      storageS3Url: undefined,
      storageS3AccessKey: undefined,
      storageS3SecretKey: undefined,
      storageS3Region: 'us-east-1',
      storageS3BucketName: 'radar',
      storageS3PathPrefix: '',
      storageS3PathCollectPerDay: true,
      notificationEmailEnabled: false,
      notificationEmailFrom: 'radar@radar.thehyve.nl',
      notificationEmailMaxAttempts: 10,
      notificationEmailRetrySeconds: 30,
      protocolGithubRepoPath: 'RADAR-base/RADAR-aRMT-protocols',
      protocolGithubFileName: 'protocol.json',
      protocolGithubBranch: 'master',
      githubClientToken: undefined,
      githubClientTimeout: 10,
      githubClientMaxContentLength: 1_000_000,
      githubCacheDuration: 3600,
      githubCacheRetryDuration: 60,
      githubCacheSize: 10_000,
      githubCacheMaxBytes: 64 * 1024 * 1024,
      githubApiUrl: 'https://api.github.com',
      githubProxyAllowedOwners: ['RADAR-base'],
      securityRadarManagementportalEnabled: false,
      securityRadarManagementportalUrl: '',
      securityOauth2ResourceId: undefined,
      radarIsConfigLocation: undefined,
      database: { kind: 'pglite' },
      version: '1.2.3',
    });
  });

  it('empty values count as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' })).toMatchObject({ port: 8080, database: { kind: 'pglite' } });
  });

  it('a complete prod environment loads', () => {
    const config = loadConfig({ ...prodBase, DATABASE_POOL_SIZE: '25', LOG_LEVEL: 'warn' });
    expect(config).toMatchObject({
      profile: 'prod',
      logLevel: 'warn',
      adminPassword: 'admin-secret',
      database: { kind: 'postgres', url: 'postgres://radar:secret@db:5432/radar', poolSize: 25 },
    });
  });

  it('DATABASE_URL selects PostgreSQL in the dev profile too', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/radar' }).database).toEqual({ kind: 'postgres', url: 'postgresql://db/radar', poolSize: 10 });
  });
});

describe('invalid values stop the start with a message naming the variable', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT: must be an integer, got "abc"'],
    [{ PORT: '70000' }, 'PORT: must be between 0 and 65535, got 70000'],
    [{ HTTP_BODY_LIMIT_BYTES: '-1' }, 'HTTP_BODY_LIMIT_BYTES: must be between'],
    [{ PROFILE: 'staging' }, 'PROFILE: must be dev or prod'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL: must be one of trace, debug, info, warn, error, fatal, silent, got "loud"'],
    [{ SPRING_APPLICATION_JSON: '{bad' }, 'SPRING_APPLICATION_JSON: must be a JSON object'],
    [{ SPRING_APPLICATION_JSON: '[1, 2]' }, 'SPRING_APPLICATION_JSON: must be a JSON object'],
    [{ BOOT_WAIT_SECONDS: '1.5' }, 'BOOT_WAIT_SECONDS: must be an integer'],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY: must be true, false, a hop count (e.g. 1) or a comma-separated list of IP addresses and CIDR ranges (e.g. 10.0.0.0/8,::1), got "maybe"'],
    [{ APPSERVER_CONTEXT_PATH: 'api' }, 'APPSERVER_CONTEXT_PATH: must be empty or a path starting with "/"'],
    [{ DATABASE_URL: 'mysql://db/radar' }, 'DATABASE_URL: must be a postgres://'],
    [{ SPRING_DATASOURCE_URL: 'jdbc:hsqldb:mem:/appserver' }, 'SPRING_DATASOURCE_URL: must be a jdbc:postgresql://'],
    [{ SMTP_URL: 'mail.example.org' }, 'SMTP_URL: must be an smtp:// or smtps:// URL'],
    [{ SPRING_MAIL_HOST: 'mail', SPRING_MAIL_PORT: '0' }, 'SPRING_MAIL_PORT: must be between 1 and 65535'],
    [{ MANAGEMENTPORTAL_OAUTH_META_TOKEN_TIMEOUT: '1h' }, 'MANAGEMENTPORTAL_OAUTH_META_TOKEN_TIMEOUT: must be an ISO-8601 duration'],
    [{ MANAGEMENTPORTAL_CATALOGUE_SERVER_ENABLE_AUTO_IMPORT: 'true' }, 'MANAGEMENTPORTAL_CATALOGUE_SERVER_SERVER_URL: required when'],
    [{ PROFILE: 'prod', DATABASE_URL: 'postgres://db/radar', RADAR_ADMIN_PASSWORD: 'x' }, 'MANAGEMENTPORTAL_MAIL_FROM: required in the prod profile'],
  ])('%j', (env, message) => {
    const err = configError(env);
    expect(err.message).toContain(message);
    expect(err.problems).toHaveLength(1);
  });

  it('names the relaxed name or the SPRING_APPLICATION_JSON path the value came from', () => {
    expect(configError({ SERVER_PORT: 'x' }).problems).toEqual(['SERVER_PORT: must be an integer, got "x"']);
    expect(configError({ SPRING_APPLICATION_JSON: '{"server":{"port":"x"}}' }).problems)
      .toEqual(['SPRING_APPLICATION_JSON server.port: must be an integer, got "x"']);
  });

  it('an instant needs its offset: MANAGEMENTPORTAL_OAUTH_LEGACY_REFRESH_UNTIL', () => {
    expect(loadConfig({ MANAGEMENTPORTAL_OAUTH_LEGACY_REFRESH_UNTIL: '2026-12-01T00:00:00+01:00' }, 'test').managementportalOauthLegacyRefreshUntil)
      .toBe(Date.parse('2026-11-30T23:00:00Z'));
    expect(configError({ MANAGEMENTPORTAL_OAUTH_LEGACY_REFRESH_UNTIL: '2026-12-01' }).problems).toEqual([
      'MANAGEMENTPORTAL_OAUTH_LEGACY_REFRESH_UNTIL: must be an ISO-8601 instant with its offset, such as 2026-12-01T00:00:00Z, got "2026-12-01"',
    ]);
  });

  it('reports every problem at once', () => {
    expect(configError({ PORT: 'abc', LOG_LEVEL: 'loud', PROFILE: 'staging' }).problems).toHaveLength(3);
  });

  it('prod without a database names DATABASE_URL', () => {
    const { DATABASE_URL: _, ...env } = prodBase;
    expect(configError(env).problems).toEqual(["DATABASE_URL: required in the prod profile (or the reference's SPRING_DATASOURCE_URL)"]);
  });

  it('prod without RADAR_ADMIN_PASSWORD names it, and refuses the dev default', () => {
    const { RADAR_ADMIN_PASSWORD: _, ...env } = prodBase;
    expect(configError(env).problems).toEqual(['RADAR_ADMIN_PASSWORD: required in the prod profile']);
    expect(configError({ ...env, RADAR_ADMIN_PASSWORD: 'radar' }).problems)
      .toEqual(['RADAR_ADMIN_PASSWORD: the dev default "radar" is not allowed in the prod profile']);
  });

  it('does not echo SPRING_APPLICATION_JSON that is not valid JSON (it may hold passwords)', () => {
    const err = configError({ SPRING_APPLICATION_JSON: '{"spring":{"datasource":{"password":hunter2}}}' });
    expect(err.problems).toEqual(['SPRING_APPLICATION_JSON: must be a JSON object (not valid JSON)']);
  });

  it('refuses user info in GITHUB_API_URL, and echoes no password of a rejected URL setting (issue 28 item 4)', () => {
    const err = configError({
      GITHUB_API_URL: 'https://gh-user:gh-pw-41aa@github.example.org/api/v3',
      SECURITY_RADAR_MANAGEMENTPORTAL_URL: 'ftp://mp-user:mp-pw-52bb@mp.example.org',
    });
    expect(err.problems).toEqual([
      'GITHUB_API_URL: must not carry a user or password (use SECURITY_GITHUB_CLIENT_TOKEN), got "https://gh-user:***@github.example.org/api/v3"',
      'SECURITY_RADAR_MANAGEMENTPORTAL_URL: must be an http:// or https:// URL, got "ftp://mp-user:***@mp.example.org"',
    ]);
  });

  it('does not echo passwords of a rejected URL', () => {
    const err = configError({ DATABASE_URL: 'mysql://radar:hunter2@db/radar', SMTP_URL: 'http://mailer:hunter2@mail' });
    expect(err.problems).toHaveLength(2);
    expect(err.message).not.toContain('hunter2');
    expect(err.message).toContain('mysql://radar:***@db/radar');
  });
});

describe('context paths (issue 28 item 6)', () => {
  it.each([
    [{ MANAGEMENTPORTAL_CONTEXT_PATH: '/', APPSERVER_CONTEXT_PATH: '' }, 'both are "/"'],
    [{ MANAGEMENTPORTAL_CONTEXT_PATH: '/', APPSERVER_CONTEXT_PATH: '/' }, 'both are "/"'],
    [{ MANAGEMENTPORTAL_CONTEXT_PATH: '/a', APPSERVER_CONTEXT_PATH: '/a/' }, 'both are "/a"'],
    [{ MANAGEMENTPORTAL_CONTEXT_PATH: '/a', APPSERVER_CONTEXT_PATH: '/a/b' }, '"/a/b" lies inside "/a"'],
    [{ MANAGEMENTPORTAL_CONTEXT_PATH: '/a/b/c', APPSERVER_CONTEXT_PATH: '/a' }, '"/a/b/c" lies inside "/a"'],
  ])('two domains on the same or overlapping paths stop the start, naming both settings: %j', (env, why) => {
    const err = configError(env);
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatch(/^MANAGEMENTPORTAL_CONTEXT_PATH and APPSERVER_CONTEXT_PATH: /);
    expect(err.problems[0]).toContain(why);
  });

  it.each([
    [{}, '/managementportal', ''],
    [{ MANAGEMENTPORTAL_CONTEXT_PATH: '/', APPSERVER_CONTEXT_PATH: '/appserver' }, '', '/appserver'],
    [{ MANAGEMENTPORTAL_CONTEXT_PATH: '/a', APPSERVER_CONTEXT_PATH: '/ab' }, '/a', '/ab'],
    [{ MANAGEMENTPORTAL_CONTEXT_PATH: '/a/b', APPSERVER_CONTEXT_PATH: '/a/c' }, '/a/b', '/a/c'],
  ])('one domain at the root beside another, or paths apart, are accepted: %j', (env, management, appserver) => {
    const config = loadConfig(env);
    expect(config.managementportalContextPath).toBe(management);
    expect(config.appserverContextPath).toBe(appserver);
  });
});

describe('durations (ISO-8601, as the reference\'s meta-token timeouts)', () => {
  it.each([['PT1H', 3600], ['P31D', 2678400], ['P1DT12H30M', 131400], ['pt90s', 90]])('%s is %i s', (raw, seconds) => {
    expect(loadConfig({ MANAGEMENTPORTAL_OAUTH_PERSISTENT_META_TOKEN_TIMEOUT: raw }).managementportalOauthPersistentMetaTokenTimeout).toBe(seconds);
  });
  it('the Spring property form works too', () => {
    expect(loadConfig({ MANAGEMENTPORTAL_OAUTH_METATOKENTIMEOUT: 'PT2H' }).managementportalOauthMetaTokenTimeout).toBe(7200);
  });
});

describe('profile', () => {
  it.each([
    [{ SPRING_PROFILES_ACTIVE: 'prod' }, 'prod'],
    [{ SPRING_PROFILES_ACTIVE: 'prod,api-docs' }, 'prod'],
    [{ SPRING_PROFILES_ACTIVE: 'api-docs, prod' }, 'prod'],
    [{ SPRING_PROFILES_ACTIVE: 'dev,api-docs' }, 'dev'],
    [{ PROFILE: 'PROD' }, 'prod'],
    [{ SPRING_APPLICATION_JSON: '{"spring":{"profiles":{"active":["prod","api-docs"]}}}' }, 'prod'],
  ])('%j selects %s', (env, profile) => {
    expect(loadConfig({ ...env, DATABASE_URL: 'postgres://db/radar', RADAR_ADMIN_PASSWORD: 'x', MANAGEMENTPORTAL_MAIL_FROM: 'p@example.org' }).profile).toBe(profile);
  });

  it('a Spring profile list without dev or prod is refused, naming the variable', () => {
    expect(configError({ SPRING_PROFILES_ACTIVE: 'api-docs' }).problems[0]).toMatch(/^SPRING_PROFILES_ACTIVE: must be dev or prod/);
  });
});

describe('database', () => {
  it('SPRING_DATASOURCE_URL with username and password selects PostgreSQL', () => {
    const config = loadConfig({
      SPRING_PROFILES_ACTIVE: 'prod',
      SPRING_DATASOURCE_URL: 'jdbc:postgresql://db:5432/radar',
      SPRING_DATASOURCE_USERNAME: 'radar',
      SPRING_DATASOURCE_PASSWORD: 's3cret',
      RADAR_ADMIN_PASSWORD: 'x', MANAGEMENTPORTAL_MAIL_FROM: 'p@example.org',
    });
    expect(config.profile).toBe('prod');
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://db:5432/radar', username: 'radar', password: 's3cret', poolSize: 10 });
  });

  it('DATABASE_URL wins over SPRING_DATASOURCE_URL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://a/one', SPRING_DATASOURCE_URL: 'jdbc:postgresql://b/two' });
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://a/one', poolSize: 10 });
  });

  it('the pool size is read under the Hikari property names too', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://a/b', SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE: '15' }).database).toMatchObject({ poolSize: 15 });
    expect(loadConfig({ DATABASE_URL: 'postgres://a/b', SPRING_DATASOURCE_HIKARI_MAXIMUMPOOLSIZE: '16' }).database).toMatchObject({ poolSize: 16 });
  });

  it('jdbcToPostgresUrl keeps hosts and database, turns user/password into user info and drops pgjdbc-only parameters', () => {
    expect(jdbcToPostgresUrl('jdbc:postgresql://db:5432/radar')).toBe('postgres://db:5432/radar');
    expect(jdbcToPostgresUrl('jdbc:postgresql://h1:5432,h2:5433/radar?targetServerType=primary')).toBe('postgres://h1:5432,h2:5433/radar');
    expect(jdbcToPostgresUrl('jdbc:postgresql://db/radar?user=me&password=p%40ss&sslmode=require&currentSchema=x&ApplicationName=mp'))
      .toBe('postgres://me:p%40ss@db/radar?sslmode=require&application_name=mp');
  });

  it('DATABASE_URL also takes a jdbc URL and several hosts', () => {
    expect(loadConfig({ DATABASE_URL: 'jdbc:postgresql://db:5432/radar' }).database).toMatchObject({ url: 'postgres://db:5432/radar' });
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@h1:5432,h2:5432/radar' }).database).toMatchObject({ url: 'postgres://u:p@h1:5432,h2:5432/radar' });
  });
});

describe('drop-in names', () => {
  it('SERVER_PORT works for the port', () => {
    expect(loadConfig({ SERVER_PORT: '9000' }).port).toBe(9000);
  });

  it('the canonical name wins over the relaxed Spring form', () => {
    expect(loadConfig({ PORT: '9100', SERVER_PORT: '9000' }).port).toBe(9100);
  });

  it.each([
    ['nested', '{"server":{"port":9001}}', 9001],
    ['dotted', '{"server.port":9002}', 9002],
    ['string value', '{"server":{"port":"9003"}}', 9003],
  ])('SPRING_APPLICATION_JSON %s keys work and win over the environment', (_form, json, port) => {
    expect(loadConfig({ SPRING_APPLICATION_JSON: json, PORT: '8000', SERVER_PORT: '8001' }).port).toBe(port);
  });

  it('SPRING_APPLICATION_JSON accepts kebab-case and camelCase keys', () => {
    expect(loadConfig({ SPRING_APPLICATION_JSON: '{"server":{"forward-headers-strategy":"NATIVE"}}' }).trustProxy).toEqual(TOMCAT_INTERNAL_PROXIES);
    expect(loadConfig({ SPRING_APPLICATION_JSON: '{"server.forwardHeadersStrategy":"native"}' }).trustProxy).toEqual(TOMCAT_INTERNAL_PROXIES);
    const config = loadConfig({ DATABASE_URL: 'postgres://a/b', SPRING_APPLICATION_JSON: '{"spring":{"datasource":{"hikari":{"maximum-pool-size":7}}}}' });
    expect(config.database).toMatchObject({ poolSize: 7 });
  });

  it('the Spring forms of booleans and log levels are understood', () => {
    expect(loadConfig({ SERVER_FORWARD_HEADERS_STRATEGY: 'NONE' }).trustProxy).toBe(false);
    expect(loadConfig({ SERVER_FORWARDHEADERSSTRATEGY: 'framework' }).trustProxy).toEqual(TOMCAT_INTERNAL_PROXIES);
    expect(loadConfig({ LOGGING_LEVEL_ROOT: 'OFF' }).logLevel).toBe('silent');
    expect(loadConfig({ LOGGING_LEVEL_ROOT: 'DEBUG' }).logLevel).toBe('debug');
  });

  it('envNamesOf gives the environment form with and without underscores between camelCase words', () => {
    const names = envNamesOf('managementportal.common.baseUrl');
    expect(names).toContain('MANAGEMENTPORTAL_COMMON_BASEURL');
    expect(names).toContain('MANAGEMENTPORTAL_COMMON_BASE_URL');
    expect(envNamesOf('server.port')).toEqual(['SERVER_PORT']);
    expect(envNamesOf('server.forward-headers-strategy')).toEqual(['SERVER_FORWARDHEADERSSTRATEGY', 'SERVER_FORWARD_HEADERS_STRATEGY']);
  });

  it('the management settings are read under the reference\'s relaxed names and SPRING_APPLICATION_JSON', () => {
    expect(loadConfig({ MANAGEMENTPORTAL_OAUTH_KEYSTOREPASSWORD: 'ks' }).managementportalOauthKeyStorePassword).toBe('ks');
    expect(loadConfig({ MANAGEMENTPORTAL_COMMON_ADMINPASSWORD: 'pw' }).managementportalCommonAdminPassword).toBe('pw');
    expect(loadConfig({ MANAGEMENTPORTAL_OAUTH_CLIENTSFILE: '/etc/c.csv' }).managementportalOauthClientsFile).toBe('/etc/c.csv');
    const json = loadConfig({ SPRING_APPLICATION_JSON: '{"managementportal":{"oauth":{"checkingKeyAliases":["old-ec","older-ec"]}}}' });
    expect(json.managementportalOauthCheckingKeyAliases).toEqual(['old-ec', 'older-ec']);
    expect(loadConfig({ MANAGEMENTPORTAL_OAUTH_CHECKING_KEY_ALIASES: ' a, ,b ' }).managementportalOauthCheckingKeyAliases).toEqual(['a', 'b']);
  });

  it('RADAR_ADMIN_* are read from SPRING_APPLICATION_JSON too', () => {
    const config = loadConfig({ SPRING_APPLICATION_JSON: '{"radar":{"admin":{"user":"ops","password":"pw"}}}' });
    expect(config).toMatchObject({ adminUser: 'ops', adminPassword: 'pw' });
  });
});

describe('notification delivery', () => {
  it('FCMSERVER_FCMSENDER takes the reference\'s values (the Admin SDK class name means rest)', () => {
    expect(loadConfig({ FCMSERVER_FCMSENDER: 'org.radarbase.fcm.downstream.AdminSdkFcmSender' }).fcmSender).toBe('rest');
    expect(loadConfig({ SPRING_APPLICATION_JSON: '{"fcmserver":{"fcmsender":"disabled"}}' }).fcmSender).toBe('disabled');
    expect(configError({ FCMSERVER_FCMSENDER: 'xmpp' }).problems).toEqual(['FCMSERVER_FCMSENDER: must be one of auto, rest, disabled, got "xmpp"']);
  });

  it('FCMSERVER_CREDENTIALS must be a base64 service account; FCM_EMULATOR_HOST host:port', () => {
    const account = Buffer.from(JSON.stringify({ project_id: 'p', client_email: 'a@p.iam.gserviceaccount.com', private_key: 'k' })).toString('base64');
    expect(loadConfig({ FCMSERVER_CREDENTIALS: account }).fcmCredentials).toBe(account);
    expect(configError({ FCMSERVER_CREDENTIALS: 'not-base64-json' }).problems[0]).toMatch(/^FCMSERVER_CREDENTIALS: must be the base64 of a service-account JSON/);
    expect(configError({ FCM_EMULATOR_HOST: 'http://localhost' }).problems[0]).toMatch(/^FCM_EMULATOR_HOST: must be host:port/);
  });

  it('the e-mail settings are read under the Spring names', () => {
    expect(loadConfig({ RADAR_NOTIFICATION_EMAIL_ENABLED: 'true', RADAR_NOTIFICATION_EMAIL_FROM: 'study@example.org' }))
      .toMatchObject({ notificationEmailEnabled: true, notificationEmailFrom: 'study@example.org' });
  });
});

describe('file upload (issue 33 item 1)', () => {
  const s3 = { RADAR_STORAGE_S3_URL: 'http://minio:9000', RADAR_STORAGE_S3_ACCESS_KEY: 'access', RADAR_STORAGE_S3_SECRET_KEY: 'secret' };

  it('enabled with missing storage settings stops the start, naming each', () => {
    expect(configError({ RADAR_FILE_UPLOAD_ENABLED: 'true' }).problems).toEqual([
      'RADAR_STORAGE_S3_URL: required when RADAR_FILE_UPLOAD_ENABLED is true and RADAR_STORAGE_TYPE is s3',
      'RADAR_STORAGE_S3_ACCESS_KEY: required when RADAR_FILE_UPLOAD_ENABLED is true and RADAR_STORAGE_TYPE is s3',
      'RADAR_STORAGE_S3_SECRET_KEY: required when RADAR_FILE_UPLOAD_ENABLED is true and RADAR_STORAGE_TYPE is s3',
    ]);
    expect(configError({ RADAR_FILE_UPLOAD_ENABLED: 'true', RADAR_STORAGE_TYPE: 'local' }).problems).toEqual([
      'RADAR_STORAGE_LOCAL_PATH: required when RADAR_FILE_UPLOAD_ENABLED is true and RADAR_STORAGE_TYPE is local',
    ]);
    expect(loadConfig({ RADAR_FILE_UPLOAD_ENABLED: 'true', ...s3 }).fileUploadEnabled).toBe(true);
  });

  it('reads the reference\'s property names (radar.file-upload.*, radar.storage.*)', () => {
    const config = loadConfig({
      SPRING_APPLICATION_JSON: JSON.stringify({ radar: { 'file-upload': { enabled: true }, storage: { type: 's3', s3: { url: 'http://minio:9000', 'access-key': 'a', 'secret-key': 's', 'bucket-name': 'b', path: { prefix: 'p', 'collect-per-day': false } } } } }),
    });
    expect([config.fileUploadEnabled, config.storageS3Url, config.storageS3AccessKey, config.storageS3SecretKey, config.storageS3BucketName, config.storageS3PathPrefix, config.storageS3PathCollectPerDay])
      .toEqual([true, 'http://minio:9000', 'a', 's', 'b', 'p', false]);
  });

  it('RADAR_FILE_UPLOAD_MAX_SIZE takes bytes or Spring\'s data sizes (also as spring.servlet.multipart.max-file-size)', () => {
    const size = (raw: string, name = 'RADAR_FILE_UPLOAD_MAX_SIZE') => loadConfig({ [name]: raw }).fileUploadMaxSize;
    expect(size('1048576')).toBe(1048576);
    expect(size('10MB')).toBe(10 * 1024 * 1024);
    expect(size('512KB')).toBe(512 * 1024);
    expect(size('1gb')).toBe(1024 ** 3);
    expect(size('100B')).toBe(100);
    expect(size('20MB', 'SPRING_SERVLET_MULTIPART_MAX_FILE_SIZE')).toBe(20 * 1024 * 1024);
    for (const bad of ['0', '10 megabytes', '-1', '1.5MB', '2TB']) {
      expect(configError({ RADAR_FILE_UPLOAD_MAX_SIZE: bad }).problems[0]).toMatch(/^RADAR_FILE_UPLOAD_MAX_SIZE: must be a size in bytes such as 10485760, 10MB or 512KB/);
    }
  });

  it('RADAR_STORAGE_TYPE is s3 or local', () => {
    expect(configError({ RADAR_STORAGE_TYPE: 'gcs' }).problems).toEqual(['RADAR_STORAGE_TYPE: must be one of s3, local, got "gcs"']);
  });
});

describe('mail server', () => {
  it('SPRING_MAIL_* build an smtp URL with encoded credentials', () => {
    const config = loadConfig({ SPRING_MAIL_HOST: 'smtp.example.org', SPRING_MAIL_PORT: '587', SPRING_MAIL_USERNAME: 'radar@example.org', SPRING_MAIL_PASSWORD: 'p:a/s@s' });
    expect(config.smtpUrl).toBe('smtp://radar%40example.org:p%3Aa%2Fs%40s@smtp.example.org:587');
    expect(new URL(config.smtpUrl!).password).toBe('p%3Aa%2Fs%40s');
  });

  it('SPRING_MAIL_HOST alone defaults to port 25 without credentials', () => {
    expect(loadConfig({ SPRING_MAIL_HOST: 'smtp' }).smtpUrl).toBe('smtp://smtp:25');
  });

  it('SMTP_URL wins over SPRING_MAIL_*', () => {
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@mail:465', SPRING_MAIL_HOST: 'other' }).smtpUrl).toBe('smtps://u:p@mail:465');
  });

  it('no mail settings leave the mail server unset', () => {
    expect(loadConfig({}).smtpUrl).toBeUndefined();
  });
});

describe('TRUST_PROXY (issue 17 item 4)', () => {
  it.each([
    ['true', true],
    ['FALSE', false],
    ['none', false],
    ['0', false],
    ['1', 1],
    ['2', 2],
    ['10.0.0.5', ['10.0.0.5']],
    [' 10.0.0.0/8, 192.168.1.1/24 ,::1, fd00::/8 ', ['10.0.0.0/8', '192.168.1.1/24', '::1', 'fd00::/8']],
    ['loopback,uniquelocal', ['loopback', 'uniquelocal']],
  ] as const)('%j is %j', (raw, value) => {
    expect(loadConfig({ TRUST_PROXY: raw }).trustProxy).toEqual(value);
  });

  it('Spring\'s native and framework mean Tomcat\'s default internal proxies', () => {
    expect(loadConfig({ SERVER_FORWARD_HEADERS_STRATEGY: 'native' }).trustProxy).toEqual([
      '10.0.0.0/8', '192.168.0.0/16', '169.254.0.0/16', '127.0.0.0/8', '100.64.0.0/10', '172.16.0.0/12', '::1/128', 'fe80::/10', 'fc00::/7',
    ]);
    expect(loadConfig({ SPRING_APPLICATION_JSON: '{"server":{"forward-headers-strategy":"framework"}}' }).trustProxy).toEqual(TOMCAT_INTERNAL_PROXIES);
  });

  it.each(['yes', 'maybe', '10.0.0.0/33', '::1/129', '10.0.0.1,proxy.example.org', '1.2.3', '-1', '101', ',', '10.0.0.0/8/1', 'fe80::1%eth0'])('%j stops the start naming TRUST_PROXY', (raw) => {
    expect(configError({ TRUST_PROXY: raw }).problems).toEqual([expect.stringMatching(/^TRUST_PROXY: /)]);
  });

  it('a hop count reaches Fastify as a trust function over the hop index', () => {
    const trust = fastifyTrustProxy(loadConfig({ TRUST_PROXY: '1' }).trustProxy);
    expect(typeof trust).toBe('function');
    const fn = trust as (address: string, hop: number) => boolean;
    expect([fn('10.0.0.1', 0), fn('203.0.113.9', 1)]).toEqual([true, false]);
    expect(fastifyTrustProxy(['10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
    expect(fastifyTrustProxy(false)).toBe(false);
  });
});

describe('MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_ADDRESS_PER_MINUTE (issue 17 item 5)', () => {
  it('defaults to 100, is read under the Spring names and refuses 0', () => {
    expect(loadConfig({}).managementportalOauthFailedAttemptsPerAddressPerMinute).toBe(100);
    expect(loadConfig({ MANAGEMENTPORTAL_OAUTH_FAILEDATTEMPTSPERADDRESSPERMINUTE: '40' }).managementportalOauthFailedAttemptsPerAddressPerMinute).toBe(40);
    expect(loadConfig({ SPRING_APPLICATION_JSON: '{"managementportal":{"oauth":{"failedAttemptsPerAddressPerMinute":30}}}' }).managementportalOauthFailedAttemptsPerAddressPerMinute).toBe(30);
    expect(configError({ MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '0' }).problems)
      .toEqual(['MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_ADDRESS_PER_MINUTE: must be between 1 and 1000000, got 0']);
  });
});

describe('prod defaults (issue 17 item 10)', () => {
  it('dev listens on 127.0.0.1 and prod on 0.0.0.0 unless HOST is set', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ SERVER_ADDRESS: '192.168.1.20' }).host).toBe('192.168.1.20');
    expect(loadConfig(prodBase).host).toBe('0.0.0.0');
    expect(loadConfig({ ...prodBase, HOST: '127.0.0.1' }).host).toBe('127.0.0.1');
  });

  it('prod refuses MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD=admin, under any of its names; dev takes it', () => {
    const message = 'MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: the dev default "admin" is not allowed in the prod profile';
    expect(configError({ ...prodBase, MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'admin' }).problems).toEqual([message]);
    expect(configError({ ...prodBase, MANAGEMENTPORTAL_COMMON_ADMINPASSWORD: 'admin' }).problems).toEqual([message]);
    expect(configError({ ...prodBase, SPRING_APPLICATION_JSON: '{"managementportal":{"common":{"adminPassword":"admin"}}}' }).problems).toEqual([message]);
    expect(loadConfig({ ...prodBase, MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'admin-secret1' }).managementportalCommonAdminPassword).toBe('admin-secret1');
    expect(loadConfig({ MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'admin' }).managementportalCommonAdminPassword).toBe('admin');
  });
});

describe('GitHub and protocols (issue 20)', () => {
  it('reads the reference\'s names in Spring\'s env forms and SPRING_APPLICATION_JSON', () => {
    expect(loadConfig({
      RADAR_QUESTIONNAIRE_PROTOCOL_GITHUB_REPO_PATH: 'my-org/protocols', RADAR_QUESTIONNAIRE_PROTOCOL_GITHUB_FILE_NAME: 'p.json',
      RADAR_QUESTIONNAIRE_PROTOCOL_GITHUB_BRANCH: 'main', SECURITY_GITHUB_CLIENT_TOKEN: 'ghp_x', SECURITY_GITHUB_CLIENT_TIMEOUT: '5',
      SECURITY_GITHUB_CLIENT_MAX_CONTENT_LENGTH: '2048', SECURITY_GITHUB_CACHE_DURATION: '60', SECURITY_GITHUB_CACHE_RETRY_DURATION: '5',
      SECURITY_GITHUB_CACHE_SIZE: '10', GITHUB_API_URL: 'http://127.0.0.1:9999/api/v3/',
    })).toMatchObject({
      protocolGithubRepoPath: 'my-org/protocols', protocolGithubFileName: 'p.json', protocolGithubBranch: 'main', githubClientToken: 'ghp_x',
      githubClientTimeout: 5, githubClientMaxContentLength: 2048, githubCacheDuration: 60, githubCacheRetryDuration: 5, githubCacheSize: 10,
      githubApiUrl: 'http://127.0.0.1:9999/api/v3', githubProxyAllowedOwners: ['my-org', 'RADAR-base'],
    });
    expect(loadConfig({ SPRING_APPLICATION_JSON: '{"security":{"github":{"client":{"maxContentLength":4096}}}}' }).githubClientMaxContentLength).toBe(4096);
    expect(loadConfig({ SECURITY_GITHUB_CLIENT_MAXCONTENTLENGTH: '4096' }).githubClientMaxContentLength).toBe(4096);
    expect(loadConfig({ GITHUB_PROXY_ALLOWED_OWNERS: 'a, B' }).githubProxyAllowedOwners).toEqual(['a', 'B']);
  });

  it('reads SECURITY_GITHUB_CACHE_MAX_BYTES as bytes or with a unit (64MB is 64 MiB), under Spring\'s names too', () => {
    expect(loadConfig({ SECURITY_GITHUB_CACHE_MAX_BYTES: '3000' }).githubCacheMaxBytes).toBe(3000);
    expect(loadConfig({ SECURITY_GITHUB_CACHE_MAX_BYTES: '64MB' }).githubCacheMaxBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ SECURITY_GITHUB_CACHE_MAXBYTES: '2m' }).githubCacheMaxBytes).toBe(2 * 1024 * 1024);
    expect(loadConfig({ SPRING_APPLICATION_JSON: '{"security":{"github":{"cache":{"maxBytes":"1GB"}}}}' }).githubCacheMaxBytes).toBe(1024 ** 3);
    expect(configError({ SECURITY_GITHUB_CACHE_MAX_BYTES: 'lots' }).problems).toEqual([expect.stringMatching(/^SECURITY_GITHUB_CACHE_MAX_BYTES: /)]);
  });

  it('refuses a repository that is not owner/name, a file name with a slash, a URL that is not http(s)', () => {
    expect(configError({
      RADAR_QUESTIONNAIRE_PROTOCOL_GITHUB_REPO_PATH: 'just-a-name', RADAR_QUESTIONNAIRE_PROTOCOL_GITHUB_FILE_NAME: 'dir/p.json',
      GITHUB_API_URL: 'ftp://example.org', SECURITY_GITHUB_CLIENT_TIMEOUT: '0',
    }).problems).toEqual([
      'SECURITY_GITHUB_CLIENT_TIMEOUT: must be between 1 and 600, got 0',
      'RADAR_QUESTIONNAIRE_PROTOCOL_GITHUB_REPO_PATH: must be a GitHub repository as owner/name, got "just-a-name"',
      'RADAR_QUESTIONNAIRE_PROTOCOL_GITHUB_FILE_NAME: must be a file name without "/", got "dir/p.json"',
      'GITHUB_API_URL: must be an http:// or https:// URL without query, got "ftp://example.org"',
    ].sort((a, b) => order(a) - order(b)));
  });
});

/** Problems come in the order of the settings table. */
const order = (problem: string) => settingsTable().findIndex((row) => problem.startsWith(`${row.env}:`));

describe('README', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

  it('lists every setting by its canonical name', () => {
    const missing = settingsTable().map((row) => row.env).filter((env) => !readme.includes(`\`${env}\``));
    expect(missing).toEqual([]);
  });
});
