import { Type, type Static } from 'typebox';
import { Id, InstantIn, InstantOut, NullableInstantOut, StringMap, nullable, ref } from '../schemas.js';

export const FcmUserDto = Type.Object({
  id: Type.Integer(),
  projectId: Type.String(),
  subjectId: Type.String(),
  email: nullable(Type.String()),
  lastOpened: NullableInstantOut,
  lastDelivered: NullableInstantOut,
  createdAt: InstantOut,
  updatedAt: InstantOut,
  enrolmentDate: InstantOut,
  timezone: Type.String({ description: 'IANA time zone or an offset in seconds' }),
  fcmToken: nullable(Type.String()),
  language: nullable(Type.String()),
  attributes: StringMap,
});

export const FcmUsers = Type.Object({ users: Type.Array(ref<typeof FcmUserDto>('FcmUserDto')) });

const userFields = {
  projectId: Type.Optional(nullable(Type.String())),
  fcmToken: Type.Optional(nullable(Type.String())),
  enrolmentDate: InstantIn,
  timezone: Type.Unsafe<string | number>({ type: ['string', 'integer'], description: 'IANA time zone (Europe/London) or an offset in seconds (7200)' }),
  language: Type.Optional(nullable(Type.String())),
  // An e-mail address or "" (no address); the untyped branches leave null to the type array.
  email: Type.Optional(nullable(Type.String({ anyOf: [{ format: 'email' }, { maxLength: 0 }] }))),
  attributes: Type.Optional(nullable(StringMap)),
  lastOpened: Type.Optional(nullable(InstantIn)),
  lastDelivered: Type.Optional(nullable(InstantIn)),
};

/** Create body: `subjectId` is required unless the path names the user. */
export const FcmUserCreateBody = Type.Object({ subjectId: Type.String({ minLength: 1 }), ...userFields }, { additionalProperties: false });
/** Update body (and create with the user in the path): `id`, `projectId` and `subjectId` may repeat the path's user, as a GET body does. */
export const FcmUserBody = Type.Object({
  id: Type.Optional(nullable(Id())),
  subjectId: Type.Optional(nullable(Type.String())),
  ...userFields,
}, { additionalProperties: false });

export const ForceFcmTokenQuery = Type.Object({ forceFcmToken: Type.Boolean({ default: false }) });

export type FcmUserDtoT = Static<typeof FcmUserDto>;
export type FcmUserBodyT = Static<typeof FcmUserBody>;
export const FcmUserDtoRef = ref<typeof FcmUserDto>('FcmUserDto');
