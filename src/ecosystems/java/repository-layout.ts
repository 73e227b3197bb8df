/** Where a file of an artifact lies in a Maven repository, relative to its root: `org/x/a/1.0/a-1.0[-classifier].ext`. */
export function repositoryFile(groupId: string, artifactId: string, version: string, extension: string, classifier?: string): string {
  return [...groupId.split('.'), artifactId, version, `${artifactId}-${version}${classifier ? `-${classifier}` : ''}.${extension}`].join('/');
}
