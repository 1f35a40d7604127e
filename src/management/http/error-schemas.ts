/** The management API's two error bodies (managementportal.md §1), for route response schemas. */
import { Type } from 'typebox';

/** Error body B of managementportal.md §1 (`ErrorVM`). */
export const ErrorVm = Type.Object({
  message: Type.String({ examples: ['error.accessDenied'] }),
  description: Type.Union([Type.String(), Type.Null()]),
  fieldErrors: Type.Union([Type.Array(Type.Object({ objectName: Type.String(), field: Type.String(), message: Type.String() })), Type.Null()]),
}, { description: 'ErrorVM' });

/** Error body A of managementportal.md §1 (`RadarWebApplicationExceptionVM`). */
export const RadarErrorVm = Type.Object({
  message: Type.String(),
  entityName: Type.String(),
  errorCode: Type.String({ examples: ['error.oAuthClientIdNotFound'] }),
  params: Type.Record(Type.String(), Type.String()),
}, { description: 'RadarWebApplicationExceptionVM' });
