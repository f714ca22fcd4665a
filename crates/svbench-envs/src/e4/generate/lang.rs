//! Hand-written phrase tables for the families written in more than one
//! language. Each table holds the same slots in every language; `{name}`,
//! `{vendor}`, `{amount}` and `{ref}` are filled by the template. Wording
//! that asks for money is kept apart from wording that does not, so a
//! template marks exactly the clauses that are indicators.

/// Languages of the multilingual families (`meta.language`).
pub const LANGUAGES: &[&str] = &["en", "pt", "es", "fr", "de"];

/// The business-email-compromise family's wording.
#[derive(Debug)]
pub struct Bec {
    /// `Hi {name},`.
    pub hello: &'static [&'static str],
    /// Subjects either side may use (no urgency words).
    pub subjects: &'static [&'static str],
    /// Subjects of an ask about the vendor.
    pub vendor_subjects: &'static [&'static str],
    /// Openers either side may use.
    pub openers: &'static [&'static str],
    /// The phishing ask that moves money (marked `payment_request`).
    pub phish_money: &'static [&'static str],
    /// The phishing ask that moves nothing yet (a reply, a number, discretion).
    pub phish_other: &'static [&'static str],
    /// The legitimate ask about money (marked as soft payment wording).
    pub legit_money: &'static [&'static str],
    /// The legitimate ask about anything else.
    pub legit_other: &'static [&'static str],
    /// A closing line either side may use.
    pub closers: &'static [&'static str],
    /// `Thanks,`.
    pub thanks: &'static [&'static str],
}

const BEC_EN: Bec = Bec {
    hello: &["Hi {name},", "Hello {name},", "{name},"],
    subjects: &[
        "Quick favour",
        "A small task",
        "Confidential",
        "Are you in the office?",
        "Quick question",
    ],
    vendor_subjects: &["{vendor}", "Question about {vendor}", "Supplier details"],
    openers: &[
        "Hope your week is going well.",
        "I'm between meetings most of the day.",
        "Thanks for your help on the audit last month.",
        "I have something I'd like you to handle for me.",
    ],
    phish_money: &[
        "please process a payment of {amount} to {vendor} from the operating account",
        "{vendor} has new bank details, please change them in the payment system before the next run",
        "could you switch the remittance account for {vendor} to the one I'll send over once you confirm",
        "I need you to make a transfer of {amount} for a confidential acquisition, I'll send the beneficiary details",
        "please set up a new payee for {vendor} with the account details I'll send you",
        "I changed banks, please move my salary to the new account before this month's payroll",
    ],
    phish_other: &[
        "send me your mobile number, I'll text you the details",
        "reply here when you're free, it's a confidential matter and I'd rather not discuss it by phone",
        "please keep this between us until I've told the board",
    ],
    legit_money: &[
        "{vendor} sent new remittance details through the supplier portal, please check them with their account manager by phone before we change anything",
        "please process the approved {vendor} invoice in the normal payment run",
        "the purchase order for {vendor} ({amount}) is approved in the finance system, please release it in the normal payment run",
        "I've updated my direct deposit in the HR portal, could you check it's in place for this month?",
    ],
    legit_other: &[
        "could you book the large meeting room for the {vendor} visit on Thursday?",
        "please send me the latest headcount figures, it's for the board pack and still confidential",
        "could you pick up the visitor badges for tomorrow's client visit?",
        "can you add {vendor} to the agenda for Monday's operations review?",
    ],
    closers: &[
        "Let me know if anything is unclear.",
        "Thanks for sorting this.",
        "Appreciate it.",
        "Speak later.",
    ],
    thanks: &["Thanks,", "Best,", "Regards,", "Cheers,"],
};

const BEC_PT: Bec = Bec {
    hello: &["Olá {name},", "Oi {name},", "Bom dia, {name},"],
    subjects: &[
        "Um favor rápido",
        "Uma pequena tarefa",
        "Confidencial",
        "Você está no escritório?",
        "Pergunta rápida",
    ],
    vendor_subjects: &["{vendor}", "Sobre a {vendor}", "Dados do fornecedor"],
    openers: &[
        "Espero que sua semana esteja indo bem.",
        "Estou em reuniões quase o dia todo.",
        "Obrigado pela ajuda na auditoria do mês passado.",
        "Preciso que você cuide de um assunto para mim.",
    ],
    phish_money: &[
        "por favor, processe um pagamento de {amount} para a {vendor} a partir da conta operacional",
        "a {vendor} tem novos dados bancários, por favor altere-os no sistema de pagamentos antes do próximo lote",
        "preciso que você faça uma transferência de {amount} para uma aquisição confidencial, envio os dados do beneficiário em seguida",
        "por favor, cadastre um novo favorecido para a {vendor} com os dados que vou te enviar",
        "mudei de banco, por favor transfira meu salário para a nova conta antes da folha deste mês",
    ],
    phish_other: &[
        "me mande seu número de celular, eu te passo os detalhes por mensagem",
        "responda quando puder, é um assunto confidencial e prefiro não falar por telefone",
        "por favor, mantenha isso entre nós até eu falar com a diretoria",
    ],
    legit_money: &[
        "a {vendor} enviou novos dados de pagamento pelo portal de fornecedores, por favor confirme por telefone com o gerente da conta antes de mudar algo",
        "por favor, processe a fatura aprovada da {vendor} no lote normal de pagamentos",
        "atualizei meu depósito de salário no portal de RH, pode confirmar se está tudo certo para este mês?",
    ],
    legit_other: &[
        "você pode reservar a sala grande para a visita da {vendor} na quinta?",
        "por favor, me envie os números atualizados de pessoal, são para o relatório do conselho e ainda são confidenciais",
        "você pode buscar os crachás de visitante para a visita do cliente amanhã?",
        "pode incluir a {vendor} na pauta da reunião de operações de segunda?",
    ],
    closers: &[
        "Qualquer dúvida, me avise.",
        "Obrigado por resolver isso.",
        "Agradeço.",
        "Falamos depois.",
    ],
    thanks: &["Obrigado,", "Abraço,", "Atenciosamente,"],
};

const BEC_ES: Bec = Bec {
    hello: &["Hola, {name}:", "Buenos días, {name}:", "{name}:"],
    subjects: &[
        "Un favor rápido",
        "Una pequeña tarea",
        "Confidencial",
        "¿Estás en la oficina?",
        "Consulta rápida",
    ],
    vendor_subjects: &["{vendor}", "Sobre {vendor}", "Datos del proveedor"],
    openers: &[
        "Espero que vaya bien la semana.",
        "Estoy en reuniones casi todo el día.",
        "Gracias por tu ayuda con la auditoría del mes pasado.",
        "Necesito que te encargues de algo por mí.",
    ],
    phish_money: &[
        "por favor, procesa un pago de {amount} a {vendor} desde la cuenta operativa",
        "{vendor} tiene nuevos datos bancarios, cámbialos en el sistema de pagos antes de la próxima remesa",
        "necesito que hagas una transferencia de {amount} para una adquisición confidencial, te paso los datos del beneficiario",
        "da de alta un nuevo beneficiario para {vendor} con los datos que te enviaré",
        "he cambiado de banco, por favor pasa mi nómina a la nueva cuenta antes de la de este mes",
    ],
    phish_other: &[
        "mándame tu número de móvil y te escribo los detalles",
        "contéstame cuando puedas, es un tema confidencial y prefiero no hablarlo por teléfono",
        "por favor, que quede entre nosotros hasta que lo comente con el consejo",
    ],
    legit_money: &[
        "{vendor} ha enviado nuevos datos de pago por el portal de proveedores, confírmalos por teléfono con su gestor antes de cambiar nada",
        "por favor, tramita la factura aprobada de {vendor} en la remesa de pagos habitual",
        "he actualizado mi cuenta de nómina en el portal de RR. HH., ¿puedes comprobar que está lista para este mes?",
    ],
    legit_other: &[
        "¿puedes reservar la sala grande para la visita de {vendor} el jueves?",
        "envíame las cifras actualizadas de plantilla, son para el informe del consejo y todavía son confidenciales",
        "¿puedes recoger las acreditaciones de visitante para la visita del cliente de mañana?",
        "¿puedes añadir {vendor} al orden del día de la reunión de operaciones del lunes?",
    ],
    closers: &[
        "Dime si algo no está claro.",
        "Gracias por encargarte.",
        "Te lo agradezco.",
        "Hablamos luego.",
    ],
    thanks: &["Gracias,", "Saludos,", "Un saludo,"],
};

const BEC_FR: Bec = Bec {
    hello: &["Bonjour {name},", "Salut {name},", "{name},"],
    subjects: &[
        "Petit service",
        "Une petite tâche",
        "Confidentiel",
        "Tu es au bureau ?",
        "Question rapide",
    ],
    vendor_subjects: &["{vendor}", "Au sujet de {vendor}", "Coordonnées fournisseur"],
    openers: &[
        "J'espère que ta semaine se passe bien.",
        "Je suis en réunion presque toute la journée.",
        "Merci pour ton aide sur l'audit le mois dernier.",
        "J'aurais besoin que tu t'occupes de quelque chose pour moi.",
    ],
    phish_money: &[
        "merci de traiter un paiement de {amount} à {vendor} depuis le compte d'exploitation",
        "{vendor} a de nouvelles coordonnées bancaires, merci de les modifier dans le système de paiement avant la prochaine échéance",
        "j'ai besoin que tu fasses un virement de {amount} pour une acquisition confidentielle, je t'envoie les coordonnées du bénéficiaire",
        "merci de créer un nouveau bénéficiaire pour {vendor} avec les coordonnées que je vais t'envoyer",
        "j'ai changé de banque, merci de verser mon salaire sur le nouveau compte avant la paie de ce mois",
    ],
    phish_other: &[
        "envoie-moi ton numéro de portable, je t'écris les détails par SMS",
        "réponds-moi quand tu peux, c'est confidentiel et je préfère ne pas en parler au téléphone",
        "merci de garder ça entre nous jusqu'à ce que j'en parle au conseil",
    ],
    legit_money: &[
        "{vendor} a envoyé de nouvelles coordonnées de paiement via le portail fournisseurs, merci de les vérifier par téléphone avant tout changement",
        "merci de traiter la facture validée de {vendor} dans le cycle de paiement habituel",
        "j'ai mis à jour mon compte de salaire dans le portail RH, peux-tu vérifier que c'est pris en compte pour ce mois-ci ?",
    ],
    legit_other: &[
        "peux-tu réserver la grande salle pour la visite de {vendor} jeudi ?",
        "merci de m'envoyer les derniers chiffres d'effectifs, c'est pour le dossier du conseil et c'est encore confidentiel",
        "peux-tu récupérer les badges visiteurs pour la visite client de demain ?",
        "peux-tu ajouter {vendor} à l'ordre du jour de la revue des opérations de lundi ?",
    ],
    closers: &[
        "Dis-moi si quelque chose n'est pas clair.",
        "Merci de t'en occuper.",
        "Merci d'avance.",
        "On en reparle.",
    ],
    thanks: &["Merci,", "Bien à toi,", "Cordialement,"],
};

const BEC_DE: Bec = Bec {
    hello: &["Hallo {name},", "Hi {name},", "Guten Morgen {name},"],
    subjects: &[
        "Kurzer Gefallen",
        "Eine kleine Aufgabe",
        "Vertraulich",
        "Bist du im Büro?",
        "Kurze Frage",
    ],
    vendor_subjects: &["{vendor}", "Frage zu {vendor}", "Lieferantendaten"],
    openers: &[
        "Ich hoffe, deine Woche läuft gut.",
        "Ich bin fast den ganzen Tag in Besprechungen.",
        "Danke für deine Hilfe beim Audit letzten Monat.",
        "Ich hätte etwas, das du für mich erledigen könntest.",
    ],
    phish_money: &[
        "bitte veranlasse eine Zahlung über {amount} an {vendor} vom Geschäftskonto",
        "{vendor} hat eine neue Bankverbindung, bitte ändere sie vor dem nächsten Zahllauf im Zahlungssystem",
        "ich brauche eine Überweisung über {amount} für eine vertrauliche Übernahme, die Empfängerdaten schicke ich dir gleich",
        "bitte lege für {vendor} einen neuen Zahlungsempfänger mit den Daten an, die ich dir schicke",
        "ich habe die Bank gewechselt, bitte überweise mein Gehalt ab diesem Monat auf das neue Konto",
    ],
    phish_other: &[
        "schick mir deine Handynummer, ich schreibe dir die Details per SMS",
        "antworte mir, wenn du Zeit hast, es ist vertraulich und ich möchte es nicht am Telefon besprechen",
        "bitte behalte das für dich, bis ich mit dem Vorstand gesprochen habe",
    ],
    legit_money: &[
        "{vendor} hat über das Lieferantenportal neue Zahlungsdaten geschickt, bitte prüfe sie telefonisch mit ihrem Kundenbetreuer, bevor wir etwas ändern",
        "bitte nimm die freigegebene Rechnung von {vendor} in den normalen Zahllauf",
        "ich habe meine Bankverbindung im HR-Portal aktualisiert, kannst du prüfen, ob sie für diesen Monat hinterlegt ist?",
    ],
    legit_other: &[
        "kannst du den großen Besprechungsraum für den Besuch von {vendor} am Donnerstag buchen?",
        "bitte schick mir die aktuellen Mitarbeiterzahlen, sie sind für die Vorstandsunterlagen und noch vertraulich",
        "kannst du die Besucherausweise für den Kundenbesuch morgen abholen?",
        "kannst du {vendor} auf die Tagesordnung der Betriebsbesprechung am Montag setzen?",
    ],
    closers: &[
        "Sag Bescheid, wenn etwas unklar ist.",
        "Danke, dass du dich darum kümmerst.",
        "Danke dir.",
        "Bis später.",
    ],
    thanks: &["Danke,", "Viele Grüße,", "Beste Grüße,"],
};

/// The business-email-compromise wording in `lang` (English for any other).
pub fn bec(lang: &str) -> &'static Bec {
    match lang {
        "pt" => &BEC_PT,
        "es" => &BEC_ES,
        "fr" => &BEC_FR,
        "de" => &BEC_DE,
        _ => &BEC_EN,
    }
}

/// The vendor-invoice family's wording.
#[derive(Debug)]
pub struct Invoice {
    /// Subjects (`{ref}` is the invoice number).
    pub subjects: &'static [&'static str],
    /// `Hello {name},`.
    pub hello: &'static [&'static str],
    /// The invoice itself (`{ref}`, `{amount}`, `{vendor}`, and `{goods}` in
    /// English, where the vendor's goods are named).
    pub intro: &'static [&'static str],
    /// The phishing change of payment details (marked `payment_request`).
    pub phish_money: &'static [&'static str],
    /// The legitimate payment line (marked as soft payment wording).
    pub legit_money: &'static [&'static str],
    /// A legitimate line that names no payment channel.
    pub legit_plain: &'static [&'static str],
    /// The portal link's lead-in.
    pub portal: &'static [&'static str],
    /// A polite closing line.
    pub closers: &'static [&'static str],
    /// `Kind regards,`.
    pub regards: &'static [&'static str],
    /// The signature's department (`Accounts Receivable`).
    pub department: &'static str,
}

const INVOICE_EN: Invoice = Invoice {
    subjects: &[
        "Invoice {ref}",
        "{vendor} invoice {ref}",
        "Invoice {ref} attached",
        "Your invoice from {vendor}",
    ],
    hello: &["Hello {name},", "Dear {name},", "Hi {name},"],
    intro: &[
        "Please find attached invoice {ref} for {amount} for the {goods}.",
        "Attached is our invoice {ref} ({amount}) covering the {goods}.",
        "Thank you for your order. Invoice {ref} for {amount} is attached for the {goods}.",
    ],
    phish_money: &[
        "please note our bank details have changed, and the new account is shown on the attached invoice",
        "we now bank with a different institution, so please use the account on this invoice for this and future payments",
        "kindly make payment to the remittance account printed on the invoice, which replaces the one in your records",
        "our finance team has moved to a new account; the details are on page two of the invoice",
    ],
    legit_money: &[
        "payment by bank transfer to the account on the invoice, as usual",
        "please pay the balance by wire transfer within your normal terms",
    ],
    legit_plain: &[
        "payment terms are 30 days as agreed in the framework contract",
        "the amount matches the purchase order your team approved",
    ],
    portal: &["You can also view it in our customer portal: "],
    closers: &[
        "Please let us know if you have any questions.",
        "Thank you for your business.",
        "We appreciate your continued custom.",
    ],
    regards: &["Kind regards,", "Best regards,", "Regards,"],
    department: "Accounts Receivable",
};

const INVOICE_PT: Invoice = Invoice {
    subjects: &["Fatura {ref}", "Fatura {ref} da {vendor}", "Segue fatura {ref}"],
    hello: &["Olá {name},", "Prezado(a) {name},"],
    intro: &[
        "Segue em anexo a fatura {ref} no valor de {amount}.",
        "Anexamos a fatura {ref} ({amount}) referente ao último pedido.",
    ],
    phish_money: &[
        "informamos que nossos dados bancários mudaram, e a nova conta consta na fatura anexa",
        "passamos a trabalhar com outro banco, por isso pedimos que use a conta desta fatura para este e os próximos pagamentos",
        "pedimos que o pagamento seja feito na conta indicada na fatura, que substitui a do seu cadastro",
    ],
    legit_money: &[
        "pagamento por transferência bancária para a conta da fatura, como de costume",
        "por favor, pague o saldo por transferência dentro do prazo habitual",
    ],
    legit_plain: &[
        "o prazo de pagamento é de 30 dias, conforme o contrato",
        "o valor corresponde ao pedido de compra aprovado pela sua equipe",
    ],
    portal: &["Também pode consultá-la no nosso portal de clientes: "],
    closers: &[
        "Ficamos à disposição para qualquer dúvida.",
        "Agradecemos a preferência.",
    ],
    regards: &["Atenciosamente,", "Cordialmente,"],
    department: "Contas a Receber",
};

const INVOICE_ES: Invoice = Invoice {
    subjects: &["Factura {ref}", "Factura {ref} de {vendor}", "Adjuntamos factura {ref}"],
    hello: &["Hola, {name}:", "Estimado/a {name}:"],
    intro: &[
        "Adjuntamos la factura {ref} por importe de {amount}.",
        "Le enviamos la factura {ref} ({amount}) correspondiente al último pedido.",
    ],
    phish_money: &[
        "le informamos de que nuestros datos bancarios han cambiado; la nueva cuenta figura en la factura adjunta",
        "ahora trabajamos con otra entidad, así que le rogamos que use la cuenta de esta factura para este y los próximos pagos",
        "le rogamos que realice el pago en la cuenta indicada en la factura, que sustituye a la que tienen registrada",
    ],
    legit_money: &[
        "pago por transferencia bancaria a la cuenta de la factura, como siempre",
        "por favor, abone el importe por transferencia en el plazo habitual",
    ],
    legit_plain: &[
        "el plazo de pago es de 30 días según el contrato marco",
        "el importe coincide con el pedido que aprobó su equipo",
    ],
    portal: &["También puede consultarla en nuestro portal de clientes: "],
    closers: &[
        "Quedamos a su disposición para cualquier consulta.",
        "Gracias por su confianza.",
    ],
    regards: &["Saludos cordiales,", "Atentamente,"],
    department: "Cuentas por Cobrar",
};

const INVOICE_FR: Invoice = Invoice {
    subjects: &["Facture {ref}", "Facture {ref} de {vendor}", "Votre facture {vendor}"],
    hello: &["Bonjour {name},", "Bonjour,"],
    intro: &[
        "Veuillez trouver ci-joint la facture {ref} d'un montant de {amount}.",
        "Nous vous adressons la facture {ref} ({amount}) relative à votre dernière commande.",
    ],
    phish_money: &[
        "nous vous informons que nos coordonnées bancaires ont changé ; le nouveau compte figure sur la facture jointe",
        "nous travaillons désormais avec une autre banque : merci d'utiliser le compte de cette facture pour ce règlement et les suivants",
        "merci d'effectuer le règlement sur le compte indiqué sur la facture, qui remplace celui de votre fichier",
    ],
    legit_money: &[
        "règlement par virement bancaire sur le compte de la facture, comme d'habitude",
        "merci de régler le solde par virement dans vos délais habituels",
    ],
    legit_plain: &[
        "le délai de paiement est de 30 jours selon le contrat-cadre",
        "le montant correspond au bon de commande validé par votre équipe",
    ],
    portal: &["Vous pouvez aussi la consulter sur notre portail client : "],
    closers: &[
        "Nous restons à votre disposition pour toute question.",
        "Merci de votre confiance.",
    ],
    regards: &["Cordialement,", "Bien cordialement,"],
    department: "Comptabilité clients",
};

const INVOICE_DE: Invoice = Invoice {
    subjects: &["Rechnung {ref}", "Rechnung {ref} von {vendor}", "Ihre Rechnung von {vendor}"],
    hello: &["Hallo {name},", "Guten Tag {name},"],
    intro: &[
        "Anbei erhalten Sie die Rechnung {ref} über {amount}.",
        "Wir übersenden Ihnen die Rechnung {ref} ({amount}) zu Ihrer letzten Bestellung.",
    ],
    phish_money: &[
        "bitte beachten Sie, dass sich unsere Bankverbindung geändert hat; das neue Konto finden Sie auf der beigefügten Rechnung",
        "wir arbeiten jetzt mit einer anderen Bank, bitte nutzen Sie für diese und alle weiteren Zahlungen das Konto auf dieser Rechnung",
        "bitte überweisen Sie auf das auf der Rechnung angegebene Konto, das die bei Ihnen hinterlegte Verbindung ersetzt",
    ],
    legit_money: &[
        "Zahlung wie gewohnt per Banküberweisung auf das Konto auf der Rechnung",
        "bitte begleichen Sie den Betrag per Überweisung innerhalb Ihrer üblichen Frist",
    ],
    legit_plain: &[
        "das Zahlungsziel beträgt wie vereinbart 30 Tage",
        "der Betrag entspricht der von Ihrem Team freigegebenen Bestellung",
    ],
    portal: &["Sie finden sie auch in unserem Kundenportal: "],
    closers: &[
        "Bei Fragen stehen wir gern zur Verfügung.",
        "Vielen Dank für Ihren Auftrag.",
    ],
    regards: &["Mit freundlichen Grüßen,", "Freundliche Grüße,"],
    department: "Debitorenbuchhaltung",
};

/// The vendor-invoice wording in `lang` (English for any other).
pub fn invoice(lang: &str) -> &'static Invoice {
    match lang {
        "pt" => &INVOICE_PT,
        "es" => &INVOICE_ES,
        "fr" => &INVOICE_FR,
        "de" => &INVOICE_DE,
        _ => &INVOICE_EN,
    }
}

/// `template` with `{name}`, `{vendor}`, `{amount}` and `{ref}` filled.
pub fn fill(template: &str, name: &str, vendor: &str, amount: &str, reference: &str) -> String {
    template
        .replace("{name}", name)
        .replace("{vendor}", vendor)
        .replace("{amount}", amount)
        .replace("{ref}", reference)
}
