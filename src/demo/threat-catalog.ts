// The invented threats of the demo world: names, categories and the facts the threat builder expands.

import type { Risk } from '../domain.js';

export interface ThreatSeed {
  name: string;
  category: string;
  risk: Risk;
  aliases: string[];
  family: string;
  platforms: string[];
  /** MITRE ATT&CK technique ids (see attack-techniques.ts). */
  ttps: string[];
  /** One sentence on what sets this threat apart; the builder wraps it in a description. */
  blurb: string;
  /** How often the threat shows up in feeds, relative to the others. */
  weight: number;
  /** Retired threats stopped being observed long ago (docs/interface.md section 3). */
  retired?: boolean;
  /**
   * Still active, but last seen 100-400 days before the demo's now: the lifecycle's first run
   * retires it (docs/interface.md section 3). Only a few are, so that run shows retirement without emptying the demo.
   */
  stale?: boolean;
  /** Names of related threats; the builder turns them into tids and makes the relation symmetric. */
  related?: string[];
}

/** Every name and alias is unique case-insensitively: lookups by name must be unambiguous. */
export const THREAT_SEEDS: readonly ThreatSeed[] = [
  { name: 'Vexorat', category: 'malware', risk: 'high', aliases: ['Vexo RAT', 'VXRat'], family: 'remote-access-trojan', platforms: ['windows'], ttps: ['T1566.001', 'T1204.002', 'T1547.001', 'T1056.001', 'T1071.001', 'T1041'], blurb: 'A .NET remote access trojan sold on underground forums with a monthly licence and a builder that embeds the operator panel address.', weight: 6, related: ['Nightjar Loader'] },
  { name: 'Gloomhook', category: 'stealer', risk: 'high', aliases: ['GloomStealer'], family: 'infostealer', platforms: ['windows'], ttps: ['T1204.002', 'T1555.003', 'T1539', 'T1567.002'], blurb: 'An infostealer that harvests browser credentials and session cookies and ships them as ZIP archives to a Telegram-style relay.', weight: 7, related: ['Larkspur Stealer'] },
  { name: 'Tarnvolt', category: 'ransomware', risk: 'critical', aliases: ['Tarn Locker', 'TVLT'], family: 'ransomware', platforms: ['windows', 'esxi'], ttps: ['T1133', 'T1021.001', 'T1490', 'T1486'], blurb: 'A ransomware-as-a-service operation that went quiet after its leak site was seized; affiliates moved to Bitterroot.', weight: 3, retired: true, related: ['Bitterroot'] },
  { name: 'Mirelock', category: 'ransomware', risk: 'critical', aliases: ['Mire Crypt'], family: 'ransomware', platforms: ['windows', 'linux', 'esxi'], ttps: ['T1190', 'T1059.001', 'T1562.001', 'T1490', 'T1486'], blurb: 'Double-extortion ransomware whose affiliates favour unpatched VPN appliances and encrypt hypervisors first.', weight: 5, related: ['Sirocco Loader'] },
  { name: 'Hexaspire', category: 'botnet', risk: 'high', aliases: ['HXS', 'Spire Bot'], family: 'iot-botnet', platforms: ['linux', 'iot'], ttps: ['T1110', 'T1059.004', 'T1105', 'T1498'], blurb: 'An IoT botnet that brute-forces Telnet and SSH on home routers and rents its nodes out for UDP floods.', weight: 9, related: ['Kettledrum'] },
  { name: 'Skeinworm', category: 'botnet', risk: 'medium', aliases: [], family: 'p2p-botnet', platforms: ['windows'], ttps: ['T1566.001', 'T1071.001', 'T1090'], blurb: 'A peer-to-peer spam botnet of the late 2010s whose peer list was poisoned and sinkholed.', weight: 2, retired: true, related: ['Cinderspam'] },
  { name: 'Pallid Heron', category: 'apt', risk: 'critical', aliases: ['APT-K17', 'Slate Crane', 'TG-2291'], family: 'espionage-group', platforms: ['windows', 'linux'], ttps: ['T1598.003', 'T1566.002', 'T1190', 'T1055', 'T1003.001', 'T1573.002'], blurb: 'A state-aligned espionage group targeting ministries and think tanks with credential phishing and edge-device exploits.', weight: 2, related: ['Copper Marten'] },
  { name: 'Copper Marten', category: 'apt', risk: 'high', aliases: ['TG-3104'], family: 'espionage-group', platforms: ['windows'], ttps: ['T1566.001', 'T1059.001', 'T1053.005', 'T1102', 'T1041'], blurb: 'An espionage cluster that shares tooling with Pallid Heron and hides its command traffic in cloud web services.', weight: 2 },
  { name: 'Hollow Lynx', category: 'apt', risk: 'high', aliases: ['Grey Bastion'], family: 'espionage-group', platforms: ['windows', 'macos'], ttps: ['T1189', 'T1204.002', 'T1036.005', 'T1071.004'], blurb: 'A watering-hole operator that compromises regional news sites and tunnels command traffic over DNS.', weight: 1 },
  { name: 'Sable Tern', category: 'apt', risk: 'medium', aliases: [], family: 'espionage-group', platforms: ['android', 'windows'], ttps: ['T1566.002', 'T1204.001', 'T1114'], blurb: 'A mobile-focused surveillance actor that lures targets to fake app stores.', weight: 1, stale: true },
  { name: 'Undertow EK', category: 'exploit-kit', risk: 'high', aliases: ['Undertow'], family: 'exploit-kit', platforms: ['windows'], ttps: ['T1189', 'T1203', 'T1105', 'T1027'], blurb: 'A browser exploit kit served through malvertising chains that rotate landing domains every few hours.', weight: 3, related: ['Vexorat'] },
  { name: 'Halcyon EK', category: 'exploit-kit', risk: 'medium', aliases: ['Halcyon Kit'], family: 'exploit-kit', platforms: ['windows'], ttps: ['T1189', 'T1105'], blurb: 'A retired exploit kit that relied on browser plug-in bugs and vanished once those plug-ins were removed.', weight: 1, retired: true },
  { name: 'Cinderspam', category: 'spam', risk: 'low', aliases: ['Cinder Mailer'], family: 'spam-operation', platforms: ['windows'], ttps: ['T1585.002', 'T1566'], blurb: 'A snowshoe spam operation that pushed pharmacy and dating spam from rotating /24 ranges.', weight: 2, retired: true },
  { name: 'Brinemail', category: 'spam', risk: 'medium', aliases: ['Brine'], family: 'spam-operation', platforms: ['linux'], ttps: ['T1585.002', 'T1566.002', 'T1583.001'], blurb: 'A bulk mailer abusing compromised web-hosting accounts to send invoice-themed lures.', weight: 5, related: ['Mossgate Kit'] },
  { name: 'Mossgate Kit', category: 'phishing', risk: 'high', aliases: ['Mossgate', 'MG-Kit'], family: 'phishing-kit', platforms: ['web'], ttps: ['T1566.002', 'T1557', 'T1539', 'T1583.001'], blurb: 'An adversary-in-the-middle phishing kit that relays webmail logins and steals session cookies to defeat one-time codes.', weight: 10 },
  { name: 'Lanternfish', category: 'phishing', risk: 'medium', aliases: ['Lanternfish Kit'], family: 'phishing-kit', platforms: ['web'], ttps: ['T1566.002', 'T1204.001', 'T1583.001'], blurb: 'A parcel-delivery smishing kit with dozens of courier-themed templates.', weight: 8 },
  { name: 'Quayside Phish', category: 'phishing', risk: 'medium', aliases: [], family: 'phishing-campaign', platforms: ['web'], ttps: ['T1566.002', 'T1078'], blurb: 'A long-running campaign impersonating harbour and logistics portals to steal supplier logins.', weight: 4 },
  { name: 'Gridsweep', category: 'scanner', risk: 'low', aliases: ['Gridsweep Scanner'], family: 'mass-scanner', platforms: ['linux'], ttps: ['T1595.001', 'T1046'], blurb: 'A mass scanner that sweeps the IPv4 space for exposed databases and admin panels.', weight: 8 },
  { name: 'Ashcrawler', category: 'scanner', risk: 'medium', aliases: ['Ash Crawler'], family: 'vulnerability-scanner', platforms: ['linux'], ttps: ['T1595.002', 'T1190', 'T1110'], blurb: 'A vulnerability scanner that probes for fresh edge-device CVEs within hours of disclosure.', weight: 6, related: ['Mirelock'] },
  { name: 'Hollowpoint C2', category: 'c2', risk: 'critical', aliases: ['HP-C2', 'Hollowpoint'], family: 'c2-framework', platforms: ['windows', 'linux'], ttps: ['T1071.001', 'T1573.002', 'T1105', 'T1055'], blurb: 'A cracked commercial-style C2 framework whose team servers answer with a recognisable default certificate.', weight: 6, related: ['Mirelock', 'Pallid Heron'] },
  { name: 'Nightjar Loader', category: 'loader', risk: 'high', aliases: ['NJLoader'], family: 'loader', platforms: ['windows'], ttps: ['T1566.001', 'T1204.002', 'T1140', 'T1105'], blurb: 'A loader spread through invoice attachments that fetches the operator\'s payload of the week.', weight: 6 },
  { name: 'Sirocco Loader', category: 'loader', risk: 'high', aliases: ['Sirocco'], family: 'loader', platforms: ['windows'], ttps: ['T1189', 'T1204.002', 'T1027', 'T1105'], blurb: 'A loader delivered via fake browser updates; known to hand access to ransomware affiliates.', weight: 5 },
  { name: 'Quartzminer', category: 'cryptominer', risk: 'medium', aliases: ['QZMiner'], family: 'cryptominer', platforms: ['linux', 'windows'], ttps: ['T1190', 'T1059.004', 'T1496'], blurb: 'A Monero miner dropped on exposed container hosts, proxied through its own mining pools.', weight: 5 },
  { name: 'Fernrot', category: 'malware', risk: 'high', aliases: ['Fern Banker'], family: 'banking-trojan', platforms: ['android'], ttps: ['T1204.001', 'T1056.001', 'T1041'], blurb: 'An Android banking trojan that overlays fake login screens on banking apps.', weight: 4 },
  { name: 'Kettledrum', category: 'botnet', risk: 'medium', aliases: ['KDrum'], family: 'proxy-botnet', platforms: ['linux', 'iot'], ttps: ['T1584.005', 'T1090', 'T1110'], blurb: 'A residential-proxy botnet built from hijacked routers and sold as "clean" proxy bandwidth.', weight: 7 },
  { name: 'Ghostreed', category: 'malware', risk: 'critical', aliases: ['Reedwiper'], family: 'wiper', platforms: ['windows'], ttps: ['T1078', 'T1485', 'T1070.004'], blurb: 'A destructive wiper disguised as ransomware; no decryptor exists because nothing is kept.', weight: 1, stale: true },
  { name: 'Bitterroot', category: 'ransomware', risk: 'critical', aliases: ['Bitter Root', 'BRT Locker'], family: 'ransomware', platforms: ['windows', 'esxi'], ttps: ['T1133', 'T1003.001', 'T1490', 'T1486', 'T1567.002'], blurb: 'A ransomware brand formed by former Tarnvolt affiliates, with a Tor leak site and a public negotiation portal.', weight: 4 },
  { name: 'Larkspur Stealer', category: 'stealer', risk: 'high', aliases: ['Larkspur'], family: 'infostealer', platforms: ['windows', 'macos'], ttps: ['T1204.002', 'T1555.003', 'T1539', 'T1041'], blurb: 'A cross-platform stealer distributed as cracked software on video-sharing sites.', weight: 6 },
  { name: 'Petrel Proxy', category: 'botnet', risk: 'low', aliases: [], family: 'proxyware', platforms: ['windows', 'android'], ttps: ['T1090', 'T1496'], blurb: 'Bundled proxyware that quietly resells the victim\'s bandwidth; more nuisance than threat.', weight: 3, stale: true },
  { name: 'Driftglass DGA', category: 'malware', risk: 'medium', aliases: ['Driftglass'], family: 'dga-malware', platforms: ['windows'], ttps: ['T1568.002', 'T1071.001'], blurb: 'A downloader that computes 250 candidate domains a day from the date and a fixed seed.', weight: 5, stale: true },
];
