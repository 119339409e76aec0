// The API's shapes the alter editor works with, from the generated types (importing nothing else,
// so the editor's pure modules are also checked and tested outside the browser bundle).
import type { components, paths } from '../api-types.js';

export type Alter = components['schemas']['Alter'];
export type AlterEdit = NonNullable<paths['/v1/users/{user}/alters/{alter}/edit']['post']['requestBody']>['content']['application/json'];
