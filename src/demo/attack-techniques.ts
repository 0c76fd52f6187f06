// MITRE ATT&CK Enterprise techniques (public ids and names) that the demo threats cite as TTPs.

export interface AttackTechnique {
  id: string;
  tactic: string;
  name: string;
}

/** Keyed by technique id; sub-techniques carry ATT&CK's "Parent: Sub" display name. */
export const ATTACK_TECHNIQUES: Readonly<Record<string, AttackTechnique>> = Object.fromEntries(
  (
    [
      ['T1595.001', 'reconnaissance', 'Active Scanning: Scanning IP Blocks'],
      ['T1595.002', 'reconnaissance', 'Active Scanning: Vulnerability Scanning'],
      ['T1598.003', 'reconnaissance', 'Phishing for Information: Spearphishing Link'],
      ['T1583.001', 'resource-development', 'Acquire Infrastructure: Domains'],
      ['T1584.005', 'resource-development', 'Compromise Infrastructure: Botnet'],
      ['T1585.002', 'resource-development', 'Establish Accounts: Email Accounts'],
      ['T1566', 'initial-access', 'Phishing'],
      ['T1566.001', 'initial-access', 'Phishing: Spearphishing Attachment'],
      ['T1566.002', 'initial-access', 'Phishing: Spearphishing Link'],
      ['T1190', 'initial-access', 'Exploit Public-Facing Application'],
      ['T1189', 'initial-access', 'Drive-by Compromise'],
      ['T1133', 'initial-access', 'External Remote Services'],
      ['T1078', 'initial-access', 'Valid Accounts'],
      ['T1059.001', 'execution', 'Command and Scripting Interpreter: PowerShell'],
      ['T1059.003', 'execution', 'Command and Scripting Interpreter: Windows Command Shell'],
      ['T1059.004', 'execution', 'Command and Scripting Interpreter: Unix Shell'],
      ['T1203', 'execution', 'Exploitation for Client Execution'],
      ['T1204.001', 'execution', 'User Execution: Malicious Link'],
      ['T1204.002', 'execution', 'User Execution: Malicious File'],
      ['T1053.005', 'persistence', 'Scheduled Task/Job: Scheduled Task'],
      ['T1547.001', 'persistence', 'Boot or Logon Autostart Execution: Registry Run Keys / Startup Folder'],
      ['T1055', 'defense-evasion', 'Process Injection'],
      ['T1027', 'defense-evasion', 'Obfuscated Files or Information'],
      ['T1036.005', 'defense-evasion', 'Masquerading: Match Legitimate Name or Location'],
      ['T1070.004', 'defense-evasion', 'Indicator Removal: File Deletion'],
      ['T1140', 'defense-evasion', 'Deobfuscate/Decode Files or Information'],
      ['T1562.001', 'defense-evasion', 'Impair Defenses: Disable or Modify Tools'],
      ['T1003.001', 'credential-access', 'OS Credential Dumping: LSASS Memory'],
      ['T1056.001', 'credential-access', 'Input Capture: Keylogging'],
      ['T1110', 'credential-access', 'Brute Force'],
      ['T1539', 'credential-access', 'Steal Web Session Cookie'],
      ['T1555.003', 'credential-access', 'Credentials from Password Stores: Credentials from Web Browsers'],
      ['T1557', 'credential-access', 'Adversary-in-the-Middle'],
      ['T1046', 'discovery', 'Network Service Discovery'],
      ['T1082', 'discovery', 'System Information Discovery'],
      ['T1021.001', 'lateral-movement', 'Remote Services: Remote Desktop Protocol'],
      ['T1114', 'collection', 'Email Collection'],
      ['T1071.001', 'command-and-control', 'Application Layer Protocol: Web Protocols'],
      ['T1071.004', 'command-and-control', 'Application Layer Protocol: DNS'],
      ['T1090', 'command-and-control', 'Proxy'],
      ['T1102', 'command-and-control', 'Web Service'],
      ['T1105', 'command-and-control', 'Ingress Tool Transfer'],
      ['T1219', 'command-and-control', 'Remote Access Software'],
      ['T1568.002', 'command-and-control', 'Dynamic Resolution: Domain Generation Algorithms'],
      ['T1573.002', 'command-and-control', 'Encrypted Channel: Asymmetric Cryptography'],
      ['T1041', 'exfiltration', 'Exfiltration Over C2 Channel'],
      ['T1567.002', 'exfiltration', 'Exfiltration Over Web Service: Exfiltration to Cloud Storage'],
      ['T1485', 'impact', 'Data Destruction'],
      ['T1486', 'impact', 'Data Encrypted for Impact'],
      ['T1490', 'impact', 'Inhibit System Recovery'],
      ['T1496', 'impact', 'Resource Hijacking'],
      ['T1498', 'impact', 'Network Denial of Service'],
    ] as const
  ).map(([id, tactic, name]) => [id, { id, tactic, name }]),
);

/** Looks up a technique the catalog cites; a typo in the catalog fails loudly rather than emitting junk. */
export function attackTechnique(id: string): AttackTechnique {
  const technique = ATTACK_TECHNIQUES[id];
  if (!technique) throw new RangeError(`unknown ATT&CK technique ${id}`);
  return technique;
}
