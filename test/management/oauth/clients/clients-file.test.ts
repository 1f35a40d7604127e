/** The reference's OAuth clients file format (managementportal.md §6). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseClientsFile } from '../../../../src/management/oauth/clients/clients-file.js';

const HEADER = 'client_id;resource_ids;client_secret;scope;authorized_grant_types;redirect_uri;authorities;access_token_validity;refresh_token_validity;additional_information;autoapprove';

describe('clients file', () => {
  it('parses the reference rows: lists, empty secret, validities and additional information', () => {
    const parsed = parseClientsFile([
      HEADER,
      'pRMT;res_ManagementPortal,res_gateway,res_AppServer;;MEASUREMENT.CREATE,SUBJECT.UPDATE;refresh_token,authorization_code;;;43200;7948800;{"dynamic_registration": true};',
      'radar_restapi;res_ManagementPortal;secret;SUBJECT.READ,PROJECT.READ;password,client_credentials;;;43200;259200;{};',
    ].join('\n'));
    expect(parsed.problems).toEqual([]);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.clients.map((c) => c.client)).toEqual([
      {
        clientId: 'pRMT', resourceIds: ['res_ManagementPortal', 'res_gateway', 'res_AppServer'], clientSecret: null,
        scope: ['MEASUREMENT.CREATE', 'SUBJECT.UPDATE'], authorizedGrantTypes: ['refresh_token', 'authorization_code'],
        redirectUris: [], authorities: [], accessTokenValidity: 43200, refreshTokenValidity: 7948800,
        additionalInformation: { dynamic_registration: true }, autoApprove: [],
      },
      {
        clientId: 'radar_restapi', resourceIds: ['res_ManagementPortal'], clientSecret: 'secret',
        scope: ['SUBJECT.READ', 'PROJECT.READ'], authorizedGrantTypes: ['password', 'client_credentials'],
        redirectUris: [], authorities: [], accessTokenValidity: 43200, refreshTokenValidity: 259200,
        additionalInformation: {}, autoApprove: [],
      },
    ]);
  });

  it('reports a broken row with its line number and keeps the others; an unknown scope is a warning', () => {
    const parsed = parseClientsFile([
      HEADER,
      'good;res_ManagementPortal;secret;SUBJECT.READ;client_credentials;;;43200;259200;{};',
      '',
      'broken;res_ManagementPortal;secret;SUBJECT.READ;client_credentials;;;soon;259200;{};',
      'badjson;res_ManagementPortal;secret;SUBJECT.READ;client_credentials;;;1;1;{"a":;',
      'typo;res_ManagementPortal,res_AppServer;;UBJECT.UPDATE;client_credentials;;;;;{};',
    ].join('\n'));
    expect(parsed.clients.map((c) => [c.line, c.client.clientId])).toEqual([[2, 'good'], [6, 'typo']]);
    expect(parsed.problems).toEqual([
      { line: 4, message: 'access_token_validity must be a whole number of seconds, got "soon"' },
      { line: 5, message: 'additional_information is not valid JSON' },
    ]);
    expect(parsed.warnings).toEqual([{ line: 6, message: expect.stringContaining('"UBJECT.UPDATE" is no permission scope') }]);
  });

  it('follows the header\'s column order', () => {
    const parsed = parseClientsFile('client_secret;client_id;scope;authorized_grant_types\ns3;reordered;PROJECT.READ;client_credentials\n');
    expect(parsed.clients[0]!.client).toMatchObject({ clientId: 'reordered', clientSecret: 's3', scope: ['PROJECT.READ'] });
  });

  it('the shipped dev file has the reference\'s eight clients and reads cleanly', () => {
    const parsed = parseClientsFile(readFileSync(new URL('../../../../config/oauth_client_details.csv', import.meta.url), 'utf8'));
    expect(parsed.problems).toEqual([]);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.clients.map((c) => c.client.clientId)).toEqual([
      'pRMT', 'aRMT', 'THINC-IT', 'radar_restapi', 'radar_redcap_integrator', 'radar_dashboard', 'radar_upload_backend', 'radar_appserver_client',
    ]);
  });
});
