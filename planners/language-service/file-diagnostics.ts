import ts from 'typescript';

/** The problems TypeScript reports for one file: syntax first, then types; errors and warnings only (no suggestions). */
export function fileDiagnostics(service: ts.LanguageService, fileName: string): ts.Diagnostic[] {
  const found = [...service.getSyntacticDiagnostics(fileName), ...service.getSemanticDiagnostics(fileName)];
  return found.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error || diagnostic.category === ts.DiagnosticCategory.Warning);
}

/** TypeScript's message as one text (chained messages on their own indented lines). */
export function diagnosticMessage(diagnostic: ts.Diagnostic): string {
  return ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
}

export function diagnosticSeverity(diagnostic: ts.Diagnostic): 'error' | 'warning' {
  return diagnostic.category === ts.DiagnosticCategory.Error ? 'error' : 'warning';
}
